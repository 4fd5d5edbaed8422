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
