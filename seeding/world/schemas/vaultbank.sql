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
CREATE TABLE payees (id INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL, email TEXT, phone TEXT,
  nickname TEXT, account_hint TEXT, added_on TEXT NOT NULL, last_paid_on TEXT, provenance TEXT NOT NULL);
CREATE TABLE scheduled_transfers (id INTEGER PRIMARY KEY, from_account_id INTEGER REFERENCES accounts(id),
  payee_id INTEGER REFERENCES payees(id), to_account_id INTEGER REFERENCES accounts(id), amount REAL NOT NULL,
  frequency TEXT NOT NULL, next_date TEXT NOT NULL, memo TEXT, status TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE cards (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL REFERENCES accounts(id), kind TEXT NOT NULL,
  name_on_card TEXT NOT NULL, network TEXT NOT NULL, number_last4 TEXT NOT NULL, expires TEXT NOT NULL,
  status TEXT NOT NULL, daily_limit REAL, contactless INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE budgets (id INTEGER PRIMARY KEY, category_id INTEGER NOT NULL REFERENCES categories(id), month TEXT NOT NULL,
  limit_amount REAL NOT NULL, spent REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE merchants (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, category TEXT, city TEXT,
  transaction_count INTEGER NOT NULL, first_seen TEXT NOT NULL, last_seen TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE alert_rules (id INTEGER PRIMARY KEY, account_id INTEGER REFERENCES accounts(id), kind TEXT NOT NULL,
  threshold REAL, channel TEXT NOT NULL, enabled INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE alerts (id INTEGER PRIMARY KEY, rule_id INTEGER REFERENCES alert_rules(id), sent_at TEXT NOT NULL,
  message TEXT NOT NULL, transaction_id INTEGER REFERENCES transactions(id), read INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE disputes (id INTEGER PRIMARY KEY, transaction_id INTEGER NOT NULL REFERENCES transactions(id),
  opened_on TEXT NOT NULL, reason TEXT NOT NULL, status TEXT NOT NULL, resolved_on TEXT, provenance TEXT NOT NULL);
CREATE TABLE interest_payments (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL REFERENCES accounts(id),
  period_end TEXT NOT NULL, apy REAL NOT NULL, amount REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE tax_documents (id INTEGER PRIMARY KEY, tax_year INTEGER NOT NULL, form TEXT NOT NULL,
  account_id INTEGER REFERENCES accounts(id), amount REAL NOT NULL, available_on TEXT NOT NULL, provenance TEXT NOT NULL);
