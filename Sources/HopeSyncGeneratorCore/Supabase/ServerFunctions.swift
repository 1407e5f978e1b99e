import HopeSyncSchema

/// The names of the server functions clients call: the Supabase SQL creates them, and the
/// Swift and Rust table lists name them for the runtimes.
package enum ServerFunctions {
    /// Every table's next page in one request.
    package static let pull = "sync_pull"
}
