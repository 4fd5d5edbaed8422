-- SpeedTax (speedtax): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE returns (id INTEGER PRIMARY KEY, tax_year INTEGER NOT NULL, state_code TEXT, status TEXT NOT NULL,
  filing_status TEXT, current_step INTEGER, agi REAL, total_tax REAL, federal_refund_amount REAL, state_refund_amount REAL,
  amount_owed REAL, filed_on TEXT, home_office_days INTEGER, charitable_total REAL, provenance TEXT NOT NULL);
CREATE TABLE w2_forms (id INTEGER PRIMARY KEY, return_id INTEGER REFERENCES returns(id), employer TEXT NOT NULL,
  gross_wages REAL NOT NULL, federal_withheld REAL NOT NULL, state_withheld REAL NOT NULL, pretax_401k REAL NOT NULL,
  pretax_health REAL NOT NULL, net_pay REAL NOT NULL, state TEXT, provenance TEXT NOT NULL);
CREATE TABLE forms_1099 (id INTEGER PRIMARY KEY, return_id INTEGER REFERENCES returns(id), payer TEXT NOT NULL,
  amount REAL NOT NULL, paid_via TEXT, provenance TEXT NOT NULL);
CREATE TABLE deductions (id INTEGER PRIMARY KEY, return_id INTEGER REFERENCES returns(id), kind TEXT NOT NULL,
  description TEXT NOT NULL, amount REAL, receipt_exists INTEGER, provenance TEXT NOT NULL);
CREATE TABLE paystubs (id INTEGER PRIMARY KEY, pay_date TEXT NOT NULL, gross REAL NOT NULL,
  federal_withholding REAL NOT NULL,
  state_withholding REAL NOT NULL, retirement_401k REAL NOT NULL, health REAL NOT NULL, net REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE taxpayer (id INTEGER PRIMARY KEY, name TEXT NOT NULL, ssn_last4 TEXT NOT NULL, birth_date TEXT, address TEXT,
  occupation TEXT, phone TEXT, email TEXT, provenance TEXT NOT NULL);
CREATE TABLE return_steps (id INTEGER PRIMARY KEY, return_id INTEGER NOT NULL REFERENCES returns(id), step INTEGER NOT NULL,
  name TEXT NOT NULL, status TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE state_returns (id INTEGER PRIMARY KEY, return_id INTEGER NOT NULL REFERENCES returns(id), state_code TEXT NOT NULL,
  taxable_income REAL, tax REAL, withheld REAL, refund REAL, status TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE refund_accounts (id INTEGER PRIMARY KEY, bank TEXT NOT NULL, kind TEXT NOT NULL, number_last4 TEXT NOT NULL,
  routing_last4 TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE interest_income (id INTEGER PRIMARY KEY, return_id INTEGER REFERENCES returns(id), payer TEXT NOT NULL,
  amount REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE documents (id INTEGER PRIMARY KEY, return_id INTEGER REFERENCES returns(id), name TEXT NOT NULL, kind TEXT NOT NULL,
  uploaded_on TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE return_history (id INTEGER PRIMARY KEY, return_id INTEGER NOT NULL REFERENCES returns(id), happened_on TEXT NOT NULL,
  event TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE notes (id INTEGER PRIMARY KEY, return_id INTEGER REFERENCES returns(id), section TEXT NOT NULL, body TEXT NOT NULL,
  provenance TEXT NOT NULL);
