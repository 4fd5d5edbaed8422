-- Kwik-E-Mart (kwik-e-mart): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE stores (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, provenance TEXT NOT NULL);
CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, price REAL NOT NULL, category TEXT, provenance TEXT NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, order_number TEXT NOT NULL UNIQUE,
  store_id INTEGER REFERENCES stores(id),
  placed_at TEXT NOT NULL, delivery_instructions TEXT, subtotal REAL NOT NULL, tip REAL NOT NULL, total REAL NOT NULL,
  status TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id), name TEXT NOT NULL,
  quantity INTEGER NOT NULL, price REAL NOT NULL, provenance TEXT NOT NULL);
