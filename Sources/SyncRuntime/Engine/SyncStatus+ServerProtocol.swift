import Foundation

extension SyncStatus {
    /// How the engine reaches the server's rows. Kinds may be added: compare with `==`.
    public struct ServerProtocol: Sendable, Hashable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// The server's sync functions: one request per pull pass, one statement per pushed batch.
        public static let functions = ServerProtocol("functions")
        /// A request per table: the server lacks the functions (its SQL is older than the app's:
        /// the engine tries them again every ten minutes), or the app's table list names none.
        public static let tables = ServerProtocol("tables")

        public var description: String { name }
    }
}
