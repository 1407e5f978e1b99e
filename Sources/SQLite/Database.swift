// The libsqlite3 wrapper: Database, Statement, Row.
import CSQLite
