-- BatBucks (batbucks): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE account (id INTEGER PRIMARY KEY, cash_balance REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE holdings (id INTEGER PRIMARY KEY, ticker TEXT NOT NULL UNIQUE, name TEXT, shares REAL NOT NULL,
  avg_cost REAL NOT NULL,
  cost_basis REAL NOT NULL, note TEXT, provenance TEXT NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, placed_on TEXT NOT NULL, action TEXT NOT NULL, ticker TEXT NOT NULL,
  shares REAL NOT NULL, price REAL NOT NULL, total REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE dividends (id INTEGER PRIMARY KEY, paid_on TEXT NOT NULL, ticker TEXT NOT NULL,
  amount REAL NOT NULL, provenance TEXT NOT NULL);
