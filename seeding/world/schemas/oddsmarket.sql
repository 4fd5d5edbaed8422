-- OddsMarket (oddsmarket): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE account (id INTEGER PRIMARY KEY, balance REAL NOT NULL, total_invested REAL NOT NULL,
  net_pnl REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE markets (id INTEGER PRIMARY KEY, ticker TEXT NOT NULL UNIQUE, title TEXT NOT NULL, source TEXT, provenance TEXT NOT NULL);
CREATE TABLE positions (id INTEGER PRIMARY KEY, market_id INTEGER REFERENCES markets(id), side TEXT NOT NULL,
  shares INTEGER NOT NULL, avg_price REAL NOT NULL, note TEXT, provenance TEXT NOT NULL);
CREATE TABLE watchlist (id INTEGER PRIMARY KEY, title TEXT NOT NULL, provenance TEXT NOT NULL);
