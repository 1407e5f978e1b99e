import Foundation
import HopeSyncModel

/// One write's claim on a column: the (updated_ms, device_id) pair of the write that set it.
/// Pairs order by milliseconds, then by device id bytewise, as the server's `collate "C"` does.
///
/// On the wire and in both databases a stamp is the text `lpad(updated_ms, 15, '0') + ":" +
/// device_id` (docs/PROTOCOL.md), so that comparing two stamps' texts bytewise compares the pairs.
package struct WriteStamp: Hashable, Sendable, Comparable, CustomStringConvertible {
    package let ms: Int64
    package let deviceID: String

    /// The largest millisecond a stamp can hold (15 digits).
    package static let maxMs: Int64 = 999_999_999_999_999
    /// The device id of the writes the server makes on its own (closing an open row): no device
    /// has it, so no device write can ever carry the same pair.
    package static let serverDeviceID = ""

    package init(ms: Int64, deviceID: String) {
        self.ms = ms
        self.deviceID = deviceID
    }

    /// A row's own pair: its `updated_ms` and `device_id`.
    package init(pairOf values: [String: SyncValue]) {
        self.init(ms: values[ReservedColumn.updatedMs]?.int ?? 0, deviceID: values[ReservedColumn.deviceId]?.text ?? "")
    }

    package init?(text: String) {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 16, utf8[15] == UInt8(ascii: ":"), utf8[..<15].allSatisfy({ (48...57).contains($0) }) else { return nil }
        ms = utf8[..<15].reduce(Int64(0)) { $0 * 10 + Int64($1 - 48) }
        deviceID = String(decoding: utf8[16...], as: UTF8.self)
    }

    package var text: String {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(16 + deviceID.utf8.count)
        writeMilliseconds(to: &utf8)
        utf8.append(UInt8(ascii: ":"))
        utf8 += deviceID.utf8
        return String(decoding: utf8, as: UTF8.self)
    }

    /// The text's first part: `ms` in decimal, left-padded with zeros to 15 digits.
    func writeMilliseconds(to output: inout [UInt8]) {
        guard (0...Self.maxMs).contains(ms) else {
            let digits = String(ms)
            output += (String(repeating: "0", count: max(0, 15 - digits.count)) + digits).utf8
            return
        }
        // Fifteen zeros, then the digits from the last one back (a division by ten is a multiply).
        var position = output.count + 14
        for _ in 0..<15 { output.append(UInt8(ascii: "0")) }
        var rest = ms
        while rest > 0 {
            output[position] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
            position -= 1
        }
    }

    package var description: String { "(\(ms), \(deviceID.isEmpty ? "server" : deviceID))" }

    package static func < (lhs: WriteStamp, rhs: WriteStamp) -> Bool {
        if lhs.ms != rhs.ms { return lhs.ms < rhs.ms }
        return lhs.deviceID.precedesBytewise(rhs.deviceID)
    }
}

/// Each column's stamp, as `column_stamps` holds them: a JSON object of column name -> stamp
/// text. A column without a stamp was never written and loses to any write.
package struct ColumnStamps: Hashable, Sendable {
    package var stamps: [String: WriteStamp]

    package init(_ stamps: [String: WriteStamp] = [:]) {
        self.stamps = stamps
    }

    /// Every one of `columns` stamped by one write.
    package init(stamping columns: [String], with stamp: WriteStamp) {
        self.init(Dictionary(uniqueKeysWithValues: columns.map { ($0, stamp) }))
    }

    package subscript(column: String) -> WriteStamp? {
        get { stamps[column] }
        set { stamps[column] = newValue }
    }

    /// Reads `column_stamps`; nil when the text is not an object of stamps.
    package init?(json text: String) {
        guard case .object(let members)? = try? JSONValue(parsing: text) else { return nil }
        var stamps: [String: WriteStamp] = [:]
        for (key, value) in members {
            guard case .string(let string) = value, let stamp = WriteStamp(text: string) else { return nil }
            stamps[key] = stamp
        }
        self.stamps = stamps
    }

    /// Compact JSON with the keys sorted bytewise: the same text whoever writes it.
    package var json: String {
        var writer = JSONWriter(capacity: stamps.count * 64)
        var key: [UInt8] = []
        for name in stamps.keys.sorted(by: { $0.precedesBytewise($1) }) {
            key.removeAll(keepingCapacity: true)
            JSONValue.writeString(name, to: &key)
            key.append(UInt8(ascii: ":"))
            writer.append(key: key, stamps[name]!)
        }
        return writer.finish()
    }

    /// Writes `column_stamps` as bytes, with no String a stamp, and a stamp shared by several
    /// columns (every column of a new row, every column one edit changed) written once: every
    /// local save and merged row writes this.
    package struct JSONWriter {
        private var output: [UInt8] = [UInt8(ascii: "{")]
        private var last: WriteStamp?
        /// `last` as a JSON string.
        private var lastText: [UInt8] = []

        package init(capacity: Int) {
            output.reserveCapacity(capacity)
        }

        /// One member: `key` is the name as a JSON string with the colon after it; members come
        /// in bytewise order of their names.
        package mutating func append(key: [UInt8], _ stamp: WriteStamp) {
            if output.count > 1 { output.append(UInt8(ascii: ",")) }
            output += key
            if stamp != last {
                lastText.removeAll(keepingCapacity: true)
                lastText.append(UInt8(ascii: "\""))
                stamp.writeMilliseconds(to: &lastText)
                lastText.append(UInt8(ascii: ":"))
                JSONValue.writeEscaped(stamp.deviceID, to: &lastText)
                lastText.append(UInt8(ascii: "\""))
                last = stamp
            }
            output += lastText
        }

        package mutating func finish() -> String {
            output.append(UInt8(ascii: "}"))
            return String(decoding: output, as: UTF8.self)
        }
    }

    /// The newest stamp of all, or nil when none.
    package var newest: WriteStamp? { stamps.values.max() }
}
