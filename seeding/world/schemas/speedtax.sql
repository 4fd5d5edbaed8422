-- SpeedTax (speedtax): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE returns (id INTEGER PRIMARY KEY, tax_year INTEGER NOT NULL, state_code TEXT, status TEXT NOT NULL, provenance TEXT NOT NULL);
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
