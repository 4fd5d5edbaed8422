-- HooliShop (hoolishop): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, category TEXT, price REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, order_number TEXT NOT NULL UNIQUE, placed_at TEXT NOT NULL,
  status TEXT NOT NULL,
  total REAL NOT NULL, note TEXT, provenance TEXT NOT NULL);
CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id),
  product_id INTEGER NOT NULL REFERENCES products(id), quantity INTEGER NOT NULL, price REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE subscriptions (id INTEGER PRIMARY KEY, product_id INTEGER REFERENCES products(id),
  frequency TEXT NOT NULL,
  price REAL NOT NULL, status TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE wishlist (id INTEGER PRIMARY KEY, product_id INTEGER REFERENCES products(id), note TEXT, provenance TEXT NOT NULL);
-- The shop around the orders: catalog detail, the account's addresses and cards, carts, reviews, returns, shipping.
CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, parent_id INTEGER REFERENCES categories(id),
  provenance TEXT NOT NULL);
CREATE TABLE sellers (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, rating REAL, provenance TEXT NOT NULL);
CREATE TABLE listings (id INTEGER PRIMARY KEY, product_id INTEGER NOT NULL REFERENCES products(id),
  seller_id INTEGER REFERENCES sellers(id), prime_eligible INTEGER NOT NULL, stock INTEGER NOT NULL, rating REAL,
  review_count INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE price_history (id INTEGER PRIMARY KEY, product_id INTEGER NOT NULL REFERENCES products(id),
  effective_date TEXT NOT NULL, price REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE addresses (id INTEGER PRIMARY KEY, label TEXT NOT NULL, recipient TEXT NOT NULL, line1 TEXT NOT NULL,
  line2 TEXT, city TEXT NOT NULL, state TEXT NOT NULL, zip TEXT NOT NULL, is_default INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE payment_methods (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, label TEXT NOT NULL, last4 TEXT,
  is_default INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE carts (id INTEGER PRIMARY KEY, status TEXT NOT NULL, updated_at TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE cart_items (id INTEGER PRIMARY KEY, cart_id INTEGER NOT NULL REFERENCES carts(id),
  product_id INTEGER NOT NULL REFERENCES products(id), quantity INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE wish_lists (id INTEGER PRIMARY KEY, name TEXT NOT NULL, is_public INTEGER NOT NULL, created_at TEXT NOT NULL,
  provenance TEXT NOT NULL);
CREATE TABLE reviews (id INTEGER PRIMARY KEY, product_id INTEGER NOT NULL REFERENCES products(id), author TEXT NOT NULL,
  rating INTEGER NOT NULL, title TEXT, body TEXT NOT NULL, posted_at TEXT NOT NULL, verified INTEGER NOT NULL,
  provenance TEXT NOT NULL);
CREATE TABLE shipments (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id),
  address_id INTEGER REFERENCES addresses(id), carrier TEXT NOT NULL, tracking TEXT NOT NULL, shipped_at TEXT,
  delivered_at TEXT, status TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE shipment_events (id INTEGER PRIMARY KEY, shipment_id INTEGER NOT NULL REFERENCES shipments(id),
  happened_at TEXT NOT NULL, status TEXT NOT NULL, location TEXT, provenance TEXT NOT NULL);
CREATE TABLE returns (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id),
  product_id INTEGER REFERENCES products(id), requested_at TEXT NOT NULL, reason TEXT NOT NULL, status TEXT NOT NULL,
  refund REAL, provenance TEXT NOT NULL);
CREATE TABLE coupons (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, description TEXT NOT NULL, percent_off REAL,
  min_quantity INTEGER, expires_on TEXT, provenance TEXT NOT NULL);
