/// Runs a store call, reporting its failure as a ``SyncError``.
func storeCall<T>(_ body: () throws -> T) throws(SyncError) -> T {
    do {
        return try body()
    } catch let error as SyncError {
        throw error
    } catch {
        throw SyncError(.configuration, "The local database failed: \(error)")
    }
}
