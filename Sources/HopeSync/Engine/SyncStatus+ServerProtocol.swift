import Foundation

extension SyncStatus {
    /// How the engine reaches the server's rows. Kinds may be added: compare with `==`.
    public struct ServerProtocol: Sendable, Hashable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// The server's pull function: one request per pull pass.
        public static let functions = ServerProtocol("functions")
        /// A request per table: the server lacks the function (its SQL is older than the app's:
        /// the engine tries it again every ten minutes), or the app's schema names none.
        public static let tables = ServerProtocol("tables")

        public var description: String { name }
    }
}
