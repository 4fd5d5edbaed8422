-- OddsMarket (oddsmarket): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE account (id INTEGER PRIMARY KEY, balance REAL NOT NULL, total_invested REAL NOT NULL,
  net_pnl REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE markets (id INTEGER PRIMARY KEY, ticker TEXT NOT NULL UNIQUE, title TEXT NOT NULL, source TEXT, provenance TEXT NOT NULL);
CREATE TABLE positions (id INTEGER PRIMARY KEY, market_id INTEGER REFERENCES markets(id), side TEXT NOT NULL,
  shares INTEGER NOT NULL, avg_price REAL NOT NULL, current_price REAL, cost_basis REAL, market_value REAL,
  unrealized_pnl REAL, pnl_pct REAL, opened_on TEXT, status TEXT NOT NULL DEFAULT 'open', note TEXT, provenance TEXT NOT NULL);
CREATE TABLE watchlist (id INTEGER PRIMARY KEY, title TEXT NOT NULL, market_id INTEGER REFERENCES markets(id), added_on TEXT,
  provenance TEXT NOT NULL);
CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, provenance TEXT NOT NULL);
CREATE TABLE market_details (id INTEGER PRIMARY KEY, market_id INTEGER NOT NULL UNIQUE REFERENCES markets(id),
  category_id INTEGER REFERENCES categories(id), status TEXT NOT NULL, closes_on TEXT NOT NULL, resolved_outcome TEXT,
  yes_price REAL NOT NULL, no_price REAL NOT NULL, volume INTEGER NOT NULL, rules TEXT, provenance TEXT NOT NULL);
CREATE TABLE market_prices (id INTEGER PRIMARY KEY, market_id INTEGER NOT NULL REFERENCES markets(id), day TEXT NOT NULL,
  yes_price REAL NOT NULL, volume INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE INDEX market_prices_market_day ON market_prices (market_id, day);
CREATE TABLE trades (id INTEGER PRIMARY KEY, market_id INTEGER NOT NULL REFERENCES markets(id), placed_at TEXT NOT NULL,
  action TEXT NOT NULL, side TEXT NOT NULL, shares INTEGER NOT NULL, price REAL NOT NULL, total REAL NOT NULL,
  provenance TEXT NOT NULL);
CREATE TABLE settlements (id INTEGER PRIMARY KEY, market_id INTEGER NOT NULL REFERENCES markets(id), side TEXT NOT NULL,
  shares INTEGER NOT NULL, cost REAL NOT NULL, payout REAL NOT NULL, realized_pnl REAL NOT NULL, settled_on TEXT NOT NULL,
  provenance TEXT NOT NULL);
CREATE TABLE funding (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, amount REAL NOT NULL, method TEXT NOT NULL,
  created_on TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE notifications (id INTEGER PRIMARY KEY, market_id INTEGER REFERENCES markets(id), sent_at TEXT NOT NULL,
  message TEXT NOT NULL, provenance TEXT NOT NULL);
