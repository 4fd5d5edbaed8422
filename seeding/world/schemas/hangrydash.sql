-- HangryDash (hangrydash): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE restaurants (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, cuisine TEXT, provenance TEXT NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, order_number TEXT NOT NULL UNIQUE,
  restaurant_id INTEGER REFERENCES restaurants(id),
  placed_at TEXT NOT NULL, subtotal REAL NOT NULL, tip REAL NOT NULL, total REAL NOT NULL, status TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id), name TEXT NOT NULL,
  quantity INTEGER NOT NULL, price REAL NOT NULL, provenance TEXT NOT NULL);
-- Menus with stable prices (changes dated), the account, favourites, promos, carts, reviews, delivery tracking.
CREATE TABLE menu_items (id INTEGER PRIMARY KEY, restaurant_id INTEGER NOT NULL REFERENCES restaurants(id),
  section TEXT NOT NULL, name TEXT NOT NULL, description TEXT, price REAL NOT NULL, calories INTEGER,
  spicy INTEGER NOT NULL, available INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE menu_price_changes (id INTEGER PRIMARY KEY, menu_item_id INTEGER NOT NULL REFERENCES menu_items(id),
  effective_date TEXT NOT NULL, old_price REAL NOT NULL, new_price REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE restaurant_hours (id INTEGER PRIMARY KEY, restaurant_id INTEGER NOT NULL REFERENCES restaurants(id),
  weekday TEXT NOT NULL, opens TEXT NOT NULL, closes TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE addresses (id INTEGER PRIMARY KEY, label TEXT NOT NULL, line1 TEXT NOT NULL, city TEXT NOT NULL,
  state TEXT NOT NULL, zip TEXT NOT NULL, dropoff_note TEXT, is_default INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE payment_methods (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, label TEXT NOT NULL, last4 TEXT,
  is_default INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE favorites (id INTEGER PRIMARY KEY, restaurant_id INTEGER NOT NULL REFERENCES restaurants(id),
  added_at TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE promos (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, description TEXT NOT NULL,
  restaurant_id INTEGER REFERENCES restaurants(id), percent_off REAL, amount_off REAL, min_subtotal REAL,
  valid_from TEXT NOT NULL, valid_to TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE promo_redemptions (id INTEGER PRIMARY KEY, promo_id INTEGER NOT NULL REFERENCES promos(id),
  order_id INTEGER NOT NULL REFERENCES orders(id), discount REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE carts (id INTEGER PRIMARY KEY, restaurant_id INTEGER REFERENCES restaurants(id), status TEXT NOT NULL,
  updated_at TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE cart_items (id INTEGER PRIMARY KEY, cart_id INTEGER NOT NULL REFERENCES carts(id),
  menu_item_id INTEGER NOT NULL REFERENCES menu_items(id), quantity INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE reviews (id INTEGER PRIMARY KEY, restaurant_id INTEGER NOT NULL REFERENCES restaurants(id),
  author TEXT NOT NULL, rating INTEGER NOT NULL, body TEXT NOT NULL, posted_at TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE delivery_events (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id),
  happened_at TEXT NOT NULL, status TEXT NOT NULL, provenance TEXT NOT NULL);
