-- Kwik-E-Mart (kwik-e-mart): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE stores (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, provenance TEXT NOT NULL);
CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, price REAL NOT NULL, category TEXT, provenance TEXT NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, order_number TEXT NOT NULL UNIQUE,
  store_id INTEGER REFERENCES stores(id),
  placed_at TEXT NOT NULL, delivery_instructions TEXT, subtotal REAL NOT NULL, tip REAL NOT NULL, total REAL NOT NULL,
  status TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id), name TEXT NOT NULL,
  quantity INTEGER NOT NULL, price REAL NOT NULL, provenance TEXT NOT NULL);
-- Each store's shelf, the account, lists, carts, substitutions and delivery slots.
CREATE TABLE store_products (id INTEGER PRIMARY KEY, store_id INTEGER NOT NULL REFERENCES stores(id),
  product_id INTEGER NOT NULL REFERENCES products(id), price REAL NOT NULL, in_stock INTEGER NOT NULL, aisle TEXT,
  provenance TEXT NOT NULL);
CREATE TABLE price_history (id INTEGER PRIMARY KEY, store_product_id INTEGER NOT NULL REFERENCES store_products(id),
  effective_date TEXT NOT NULL, price REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE addresses (id INTEGER PRIMARY KEY, label TEXT NOT NULL, line1 TEXT NOT NULL, city TEXT NOT NULL,
  state TEXT NOT NULL, zip TEXT NOT NULL, instructions TEXT, is_default INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE payment_methods (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, label TEXT NOT NULL, last4 TEXT,
  is_default INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE shopping_lists (id INTEGER PRIMARY KEY, name TEXT NOT NULL, store_id INTEGER REFERENCES stores(id),
  created_at TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE shopping_list_items (id INTEGER PRIMARY KEY, list_id INTEGER NOT NULL REFERENCES shopping_lists(id),
  product_id INTEGER REFERENCES products(id), name TEXT NOT NULL, quantity INTEGER NOT NULL, checked INTEGER NOT NULL,
  provenance TEXT NOT NULL);
CREATE TABLE carts (id INTEGER PRIMARY KEY, store_id INTEGER REFERENCES stores(id), status TEXT NOT NULL,
  updated_at TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE cart_items (id INTEGER PRIMARY KEY, cart_id INTEGER NOT NULL REFERENCES carts(id),
  product_id INTEGER NOT NULL REFERENCES products(id), quantity INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE substitutions (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id),
  requested TEXT NOT NULL, substituted TEXT NOT NULL, price_difference REAL NOT NULL, accepted INTEGER NOT NULL,
  provenance TEXT NOT NULL);
CREATE TABLE delivery_slots (id INTEGER PRIMARY KEY, store_id INTEGER NOT NULL REFERENCES stores(id),
  starts_at TEXT NOT NULL, ends_at TEXT NOT NULL, fee REAL NOT NULL, available INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE promotions (id INTEGER PRIMARY KEY, store_id INTEGER REFERENCES stores(id), title TEXT NOT NULL,
  code TEXT, percent_off REAL, valid_from TEXT NOT NULL, valid_to TEXT NOT NULL, provenance TEXT NOT NULL);
