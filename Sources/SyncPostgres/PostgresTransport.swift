import SyncRuntime
import Postgres
