-- Gringotts (vaultbank): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, phone TEXT, address TEXT, provenance TEXT NOT NULL);
CREATE TABLE accounts (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), kind TEXT NOT NULL,
  name TEXT NOT NULL, network TEXT, number_last4 TEXT NOT NULL, opening_balance REAL NOT NULL, balance REAL NOT NULL,
  credit_limit REAL, provenance TEXT NOT NULL);
CREATE TABLE transactions (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL REFERENCES accounts(id),
  posted_date TEXT NOT NULL, description TEXT NOT NULL, merchant TEXT, category TEXT, amount REAL NOT NULL,
  balance_after REAL NOT NULL, method TEXT, reference TEXT, provenance TEXT NOT NULL);
CREATE INDEX transactions_account_date ON transactions (account_id, posted_date);
CREATE TABLE statements (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL REFERENCES accounts(id),
  period_start TEXT NOT NULL, period_end TEXT NOT NULL, opening_balance REAL NOT NULL, closing_balance REAL NOT NULL,
  total_credits REAL NOT NULL, total_debits REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE recurring_payments (id INTEGER PRIMARY KEY, account_id INTEGER REFERENCES accounts(id),
  name TEXT NOT NULL,
  payee TEXT, amount REAL NOT NULL, day_of_month INTEGER NOT NULL, method TEXT NOT NULL, status TEXT NOT NULL, provenance TEXT NOT NULL);
