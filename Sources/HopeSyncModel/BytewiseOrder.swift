import Foundation

extension String {
    /// Whether this string's UTF-8 bytes order before `other`'s, as PostgreSQL's `collate "C"`
    /// orders text: how canonical JSON sorts its keys and how stamps compare device ids. One
    /// memcmp over both strings' bytes, not an iterator step a byte: every local save sorts its
    /// row's stamps.
    package func precedesBytewise(_ other: String) -> Bool {
        var (lhs, rhs) = (self, other)
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                let common = Swift.min(left.count, right.count)
                if common > 0, let a = left.baseAddress, let b = right.baseAddress {
                    let order = memcmp(a, b, common)
                    if order != 0 { return order < 0 }
                }
                return left.count < right.count
            }
        }
    }
}
