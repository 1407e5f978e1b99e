import Foundation

extension SyncStatus {
    /// What the engine is doing. Phases may be added (as `waitingForSignIn` was): compare with
    /// `==` (`phase == .idle`), or switch over ``kind`` with a `default`. What a phase carries
    /// is a property, set for that kind only (``retryAt``, ``schemaDrift``).
    public struct Phase: Sendable, Hashable, CustomStringConvertible {
        public let kind: Kind
        /// When the next attempt is; set while backing off.
        public let retryAt: Date?
        /// What the server lacks; set on schema drift.
        public let schemaDrift: SchemaDrift?

        private init(_ kind: Kind, retryAt: Date? = nil, schemaDrift: SchemaDrift? = nil) {
            self.kind = kind
            self.retryAt = retryAt
            self.schemaDrift = schemaDrift
        }

        public static let idle = Phase(.idle)
        public static let syncing = Phase(.syncing)
        /// The network failed or was switched off; writes queue locally.
        public static let offline = Phase(.offline)
        /// Nobody (or another user) is signed in: writes queue; syncing resumes at sign-in.
        public static let waitingForSignIn = Phase(.waitingForSignIn)

        /// The last attempt failed; the next one is at `date`.
        public static func backingOff(until date: Date) -> Phase {
            Phase(.backingOff, retryAt: date)
        }

        /// The server no longer lets this build write: the app shows "please update". Writes
        /// stay queued (none is sent again until the app is updated) and pulls go on.
        public static let updateRequired = Phase(.updateRequired)

        /// The server lacks a column this client has: it needs the generated migration.
        public static func schemaDrift(_ drift: SchemaDrift) -> Phase {
            Phase(.schemaDrift, schemaDrift: drift)
        }

        public var description: String {
            if let retryAt { return "\(kind)(until: \(retryAt))" }
            if let schemaDrift { return "\(kind)(\(schemaDrift))" }
            return kind.description
        }

        /// A phase without what it carries, to switch over: `case .backingOff:`.
        public struct Kind: Sendable, Hashable, CustomStringConvertible {
            private enum Name: String, Sendable, Hashable {
                case idle, syncing, offline, backingOff, schemaDrift, waitingForSignIn, updateRequired
            }

            private let name: Name

            private init(_ name: Name) {
                self.name = name
            }

            public var description: String { name.rawValue }

            public static let idle = Kind(.idle)
            public static let syncing = Kind(.syncing)
            public static let offline = Kind(.offline)
            public static let backingOff = Kind(.backingOff)
            public static let schemaDrift = Kind(.schemaDrift)
            public static let waitingForSignIn = Kind(.waitingForSignIn)
            public static let updateRequired = Kind(.updateRequired)
        }
    }
}
