-- BatBucks (batbucks): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE account (id INTEGER PRIMARY KEY, cash_balance REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE holdings (id INTEGER PRIMARY KEY, ticker TEXT NOT NULL UNIQUE, name TEXT, shares REAL NOT NULL,
  avg_cost REAL NOT NULL,
  cost_basis REAL NOT NULL, note TEXT, provenance TEXT NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, placed_on TEXT NOT NULL, action TEXT NOT NULL, ticker TEXT NOT NULL,
  shares REAL NOT NULL, price REAL NOT NULL, total REAL NOT NULL, order_type TEXT NOT NULL DEFAULT 'market',
  status TEXT NOT NULL DEFAULT 'filled', provenance TEXT NOT NULL);
CREATE TABLE dividends (id INTEGER PRIMARY KEY, paid_on TEXT NOT NULL, ticker TEXT NOT NULL,
  amount REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE securities (id INTEGER PRIMARY KEY, ticker TEXT NOT NULL UNIQUE, name TEXT NOT NULL, kind TEXT NOT NULL,
  sector TEXT, exchange TEXT NOT NULL, description TEXT, dividend_yield REAL, expense_ratio REAL, provenance TEXT NOT NULL);
CREATE TABLE quotes (id INTEGER PRIMARY KEY, ticker TEXT NOT NULL UNIQUE REFERENCES securities(ticker), as_of TEXT NOT NULL,
  price REAL NOT NULL, previous_close REAL NOT NULL, day_change_pct REAL NOT NULL, week52_low REAL NOT NULL,
  week52_high REAL NOT NULL, volume INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE price_history (id INTEGER PRIMARY KEY, ticker TEXT NOT NULL REFERENCES securities(ticker), day TEXT NOT NULL,
  open REAL NOT NULL, high REAL NOT NULL, low REAL NOT NULL, close REAL NOT NULL, volume INTEGER NOT NULL,
  provenance TEXT NOT NULL);
CREATE INDEX price_history_ticker_day ON price_history (ticker, day);
CREATE TABLE tax_lots (id INTEGER PRIMARY KEY, ticker TEXT NOT NULL, acquired_on TEXT NOT NULL, shares REAL NOT NULL,
  price REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE watchlists (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_on TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE watchlist_items (id INTEGER PRIMARY KEY, watchlist_id INTEGER NOT NULL REFERENCES watchlists(id),
  ticker TEXT NOT NULL, added_on TEXT NOT NULL, note TEXT, provenance TEXT NOT NULL);
CREATE TABLE linked_accounts (id INTEGER PRIMARY KEY, institution TEXT NOT NULL, kind TEXT NOT NULL, number_last4 TEXT NOT NULL,
  verified INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE transfers (id INTEGER PRIMARY KEY, linked_account_id INTEGER REFERENCES linked_accounts(id), direction TEXT NOT NULL,
  amount REAL NOT NULL, requested_on TEXT NOT NULL, status TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE price_alerts (id INTEGER PRIMARY KEY, ticker TEXT NOT NULL, condition TEXT NOT NULL, price REAL NOT NULL,
  active INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE portfolio_snapshots (id INTEGER PRIMARY KEY, day TEXT NOT NULL UNIQUE, market_value REAL NOT NULL,
  cost_basis REAL NOT NULL, cash REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE statements (id INTEGER PRIMARY KEY, month TEXT NOT NULL UNIQUE, ending_value REAL NOT NULL,
  dividends REAL NOT NULL, buys REAL NOT NULL, sells REAL NOT NULL, provenance TEXT NOT NULL);
