// The libpq wrapper: Connection, QueryResult.
import CLibPQ
