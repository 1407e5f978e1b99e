import Foundation
import HopeSchema
import HopeSync

/// `swift run sync-demo`: two devices of the time tracker, each starting a timer while offline,
/// then coming back; after every sync it prints what each device sees, ending with the one
/// running session both agree on. `--shared`: two users share a task list, and one is removed
/// while offline.
let usage = """
    USAGE: sync-demo [--shared] [--database-url URL | --start-postgres]

      --shared             Alice shares a task list with Bob; Bob's phone edits it offline while
                           Alice removes him (four devices, two users)
      (no other option)    sync through the in-memory server
      --database-url URL   sync through this PostgreSQL (libpq URL), which must already have the
                           Supabase roles and auth.uid() and the generated schema applied
                           (Generated/supabase/schema.sql or the migrations); the demo adds rows
                           for a random user and changes no schema
      --start-postgres     start a temporary PostgreSQL 15 (needs it installed), apply the
                           Supabase prelude and Generated/supabase/schema.sql, stop it at the end
    """

var arguments = Array(CommandLine.arguments.dropFirst())
let shared = arguments.contains("--shared")
arguments.removeAll { $0 == "--shared" }
let schemaSQL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Generated/supabase/schema.sql")

let server: DemoServer
do {
    switch arguments.first {
    case nil: server = .inMemory(tables: GeneratedSchema.tables)
    case "--database-url" where arguments.count == 2: server = .postgres(url: arguments[1])
    case "--start-postgres" where arguments.count == 1: server = try .temporaryPostgres(schemaSQL: schemaSQL)
    case "--help", "-h":
        print(usage)
        exit(0)
    default:
        FileHandle.standardError.write(Data((usage + "\n").utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("sync-demo: cannot start PostgreSQL: \(error)\n".utf8))
    exit(1)
}

let code = shared ? await SharedListDemo(server: server).run() : await TimeTrackerDemo(server: server).run()
server.stop()
exit(code)
