extension SyncStatusModel {
    /// Follows the client's status: the signed-in user's engine's, `.waitingForSignIn` while
    /// nobody is signed in.
    public convenience init(client: SyncClient) {
        self.init(updates: client.statusUpdates())
    }
}
