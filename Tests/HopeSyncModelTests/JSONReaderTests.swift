import Foundation
import Testing

@testable import HopeSyncModel

/// Members matched to expected names on their bytes find the same places as their decoded keys.
struct JSONReaderTests {
    static let names = JSONNames(["id", "title", "", "é", "server_seq"])

    /// The place of each member's key, read both ways: by name, and as a decoded string.
    static func places(_ document: String) throws -> (byBytes: [Int?], byString: [Int?]) {
        let all = ["id", "title", "", "é", "server_seq"]
        var byBytes: [Int?] = []
        var byString: [Int?] = []
        var reader = JSONReader(utf8: Array(document.utf8))
        try reader.readObject(naming: names) { place, member throws(JSONSyntaxError) in
            byBytes.append(place)
            _ = try member.readValue()
        }
        reader = JSONReader(utf8: Array(document.utf8))
        try reader.readObject { key, member throws(JSONSyntaxError) in
            byString.append(all.firstIndex(of: key))
            _ = try member.readValue()
        }
        return (byBytes, byString)
    }

    @Test(arguments: [
        // In order, as PostgREST writes a row; out of order; unknown, repeated and empty keys.
        #"{"id":1,"title":"a","":2,"é":3,"server_seq":4}"#,
        #"{"server_seq":4,"id":1,"title":"a"}"#,
        #"{"unknown":1,"id":2,"identity":3,"i":4,"id":5}"#,
        // Keys with escapes: decoded before they are matched.
        #"{"\u0069d":1,"\u00e9":2,"ti\"tle":3,"title\n":4}"#,
        #"{ "title" : 1 , "id" : [ {"id": 2} ] }"#,
        "{}",
    ])
    func placesAreTheDecodedKeysPlaces(_ document: String) throws {
        let (byBytes, byString) = try Self.places(document)
        #expect(byBytes == byString)
        #expect(!byBytes.isEmpty || document == "{}")
    }

    @Test func aKeyThatIsNotAStringIsRefused() {
        var reader = JSONReader(utf8: Array(#"{id:1}"#.utf8))
        #expect(throws: JSONSyntaxError.self) {
            try reader.readObject(naming: Self.names) { _, member throws(JSONSyntaxError) in _ = try member.readValue() }
        }
    }
}
