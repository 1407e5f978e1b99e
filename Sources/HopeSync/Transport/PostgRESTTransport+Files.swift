extension PostgRESTTransport {
    /// Files go to the same project's Storage, signed as the rows are.
    public var files: (any SyncFileTransport)? { StorageTransport(postgREST: configuration) }
}
