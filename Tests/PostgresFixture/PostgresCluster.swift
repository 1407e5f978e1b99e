import Postgres
