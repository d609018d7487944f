import Foundation
import TestSupport
import Testing

@testable import ListStore

/// The change-log record written by hand (``LogRecordWriter``) is byte for byte what `JSONEncoder`
/// wrote before it, for every kind of event, several lists, arrived ids and titles that need escaping.
@Suite struct LogRecordWriterTests {
    static let awkward = ["", "plain", "q\"b\\s/c", "\u{1}\u{1f}\u{7f}\u{8}\u{c}\n\r\t", "é \u{2028} 😀 e\u{301}", "</script>"]

    static func randomEvent(_ random: inout SeededGenerator) -> EditEvent {
        func n() -> Int64 { Int64.random(in: -5...1_000_000, using: &random) }
        func i() -> Int { Int.random(in: 0...100_000, using: &random) }
        func title() -> String { awkward.randomElement(using: &random) ?? "" }
        func path() -> ListIndexPath { ListIndexPath(section: i(), row: i()) }
        func pairs(_ width: Int) -> [[Int64]] { (0..<Int.random(in: 0...3, using: &random)).map { _ in (0..<width).map { _ in n() } } }
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return .sectionInserted(id: n(), index: i())
        case 1: return .sectionsDeleted(pairs(2))
        case 2: return .sectionMoved(id: n(), from: i(), to: i())
        case 3: return .sectionRenamed(id: n(), index: i(), oldTitle: title())
        case 4: return .rowsInserted(ids: pairs(2), section: n(), sectionIndex: i(), at: i())
        case 5: return .rowsDeleted(pairs(4))
        case 6: return .rowMoved(id: n(), from: path(), source: n(), to: path(), target: n())
        case 7: return .rowUpdated(id: n(), section: n(), path: path(), oldTitle: title(), oldPayload: Bool.random(using: &random) ? nil : title())
        case 8: return .sectionRestored(id: n(), index: i())
        default: return .rowsRestored(ids: pairs(2), section: n(), sectionIndex: i(), at: i())
        }
    }

    @Test(arguments: [UInt64(1), 2, 3]) func theWriterWritesWhatJSONEncoderWrote(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<300 {
            var lists: [Int64: [EditEvent]] = [:]
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                lists[Int64.random(in: 1...9, using: &random)] = (0..<Int.random(in: 1...4, using: &random)).map { _ in Self.randomEvent(&random) }
            }
            let arrived = (0..<Int.random(in: 0...2, using: &random)).map { _ in Int64.random(in: 1...99, using: &random) }
            let sections = (0..<Int.random(in: 0...2, using: &random)).map { _ in Int64.random(in: 1...99, using: &random) }
            let events = ListedEvents(lists: lists, arrivedRows: arrived, arrivedSections: sections)
            let written = try LogRecord.encode(events)
            #expect(written == (try LogRecord.encodeThroughJSONEncoder(events)))
            #expect(LogRecord.decode(written) == events)
        }
    }
}
