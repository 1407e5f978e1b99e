import Foundation

/// Tokens obtained after a refusal, each standing in for the refused token of its user's
/// credentials, so later requests made with those credentials do not each meet a 401 first.
actor RefreshedTokens {
    private var fresh: [UUID: (replacing: String, token: String)] = [:]

    func token(for user: Credentials) -> String {
        guard let entry = fresh[user.userID], entry.replacing == user.accessToken else { return user.accessToken }
        return entry.token
    }

    func remember(_ token: String, replacing user: Credentials) {
        fresh[user.userID] = (user.accessToken, token)
    }
}
