import Foundation
import ListStore
import StoreShorthands
import Testing

/// Typed payloads (issue 19, item 3): `Codable` values written and read back, stored in one canonical
/// text so that equal values are equal payloads, with typed errors naming the row.
@Suite struct TypedPayloadTests {
    struct Address: Codable, Hashable {
        var street: String
        var city: String?
    }

    struct Contact: Codable, Hashable {
        var name: String
        var age: Int
        var score: Double
        var tags: [String]
        var address: Address
        var nickname: String?
        var born: Date
        var picture: Data
        var ratings: [String: Int]
        var big: UInt64
        var small: Int64
    }

    static let sample = Contact(
        name: "Zoë \"Z\" O'Brien\\/\n\t\u{1}\u{7F}\u{2028}😀 日本", age: 41, score: 0.1, tags: ["a", "", "ünïcödé"],
        address: Address(street: "1 Rue de la Paix", city: nil), nickname: nil,
        born: Date(timeIntervalSinceReferenceDate: 123_456_789.123_456_7), picture: Data([0, 1, 2, 255]),
        ratings: ["b": 2, "a": 1, "ä": 3], big: UInt64.max, small: Int64.min)

    @Test func nestedValuesWithOptionalsDatesDataAndUnicodeRoundTripExactly() throws {
        let store = try ListStore.inMemory()
        let (section, _) = try store.insertSection(title: "People")
        let (id, changes) = try store.insertRow("Zoë", payload: Self.sample, intoSection: section)
        #expect(changes.insertedRows.map(\.id) == [id])
        let row = try store.row(id: id)
        #expect(try row.payload(as: Contact.self) == Self.sample)
        #expect(row.payload == (try ListStore.canonicalPayload(Self.sample)))
        // The date strategy: seconds since 2001-01-01 as a Double, which reads back to the same Date.
        #expect(try row.payload(as: Contact.self)?.born.timeIntervalSinceReferenceDate == 123_456_789.123_456_7)
        #expect(row.payload?.contains("\"born\":123456789.1234567") == true)
        // A value given inside a transaction, by section id and by index; and updates.
        try store.write { tx in
            let first = try tx.insertRow("Ana", payload: Address(street: "Elm", city: "Oslo"), intoSection: 0)
            try tx.updateRow(id: first, payload: Address(street: "Oak", city: nil))
        }
        let ana = try #require(try store.rows(inSection: 0).first { $0.title == "Ana" })
        #expect(try ana.payload(as: Address.self) == Address(street: "Oak", city: nil))
        #expect(ana.payload == #"{"street":"Oak"}"#)
        try store.updateRow(at: ListIndexPath(section: 0, row: 0), title: "Zoe", payload: ["x": 1.5])
        #expect(try store.row(at: ListIndexPath(section: 0, row: 0)).payload(as: [String: Double].self) == ["x": 1.5])
        #expect(try store.row(at: ListIndexPath(section: 0, row: 0)).title == "Zoe")
        // Top-level scalars and nil are values too; a row without a payload reads as nil.
        let (scalar, _) = try store.insertRow("n", payload: 38, intoSection: section)
        #expect(try store.row(id: scalar).payload(as: Int.self) == 38)
        let (plain, _) = try store.insertRow("plain", intoSection: section)
        #expect(try store.row(id: plain).payload(as: Contact.self) == nil)
        let rows = try NewRow(title: "typed", encoding: Address(street: "A", city: "B"))
        let (ids, _) = try store.insertRows([rows, "untyped"], intoSection: section)
        #expect(try store.row(id: ids[0]).payload(as: Address.self) == Address(street: "A", city: "B"))
    }

    @Test func theCanonicalTextFollowsTheStatedRule() throws {
        struct Mixed: Encodable {
            let z = 1
            let a: [Double] = [38.0, 0.1, 1e-5, 1e20, -0.0, 2.5e-300]
            let m = "é/\"\\\u{8}\u{c}\n\r\t\u{1f}\u{7f}"
            let b = true
            let n: Int? = nil
            let k: [String: Int] = ["b": 1, "B": 2, "é": 3, "e": 4, "10": 5, "9": 6]
        }
        #expect(
            try ListStore.canonicalPayload(Mixed())
                == #"{"a":[38,0.1,1e-05,1e+20,0,2.5e-300],"b":true,"k":{"10":5,"9":6,"B":2,"b":1,"e":4,"é":3},"m":"é/\"\\\b\f\n\r\t\u001f"# + "\u{7f}" + #"","z":1}"#)
    }

    @Test func equalValuesGiveEqualPayloadsWhateverTheirKeyOrderAndSpelling() throws {
        struct AFirst: Encodable {
            let a: Int
            let b: String
        }
        struct BFirst: Encodable {
            let b: String
            let a: Int
        }
        #expect(try ListStore.canonicalPayload(AFirst(a: 1, b: "x")) == ListStore.canonicalPayload(BFirst(b: "x", a: 1)))
        // Dictionaries built in different orders (and so hashed into different orders).
        var forward: [String: Int] = [:]
        var backward: [String: Int] = [:]
        for key in (0..<200).map({ "k\($0)" }) { forward[key] = key.count }
        for key in (0..<200).map({ "k\($0)" }).reversed() { backward[key] = key.count }
        #expect(try ListStore.canonicalPayload(forward) == ListStore.canonicalPayload(backward))
        // Swift's equal strings: precomposed and decomposed é.
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        #expect(composed == decomposed)
        #expect(try ListStore.canonicalPayload([composed: composed]) == ListStore.canonicalPayload([decomposed: decomposed]))
        // A whole-number Double and the same Int.
        #expect(try ListStore.canonicalPayload(["n": 38.0]) == ListStore.canonicalPayload(["n": 38]))
        // Stored payloads of equal values compare equal as text.
        let store = try ListStore.inMemory()
        let (section, _) = try store.insertSection(title: "s")
        let (one, _) = try store.insertRow("1", payload: forward, intoSection: section)
        let (two, _) = try store.insertRow("2", payload: backward, intoSection: section)
        #expect(try store.row(id: one).payload == store.row(id: two).payload)
        // Unequal values stay unequal.
        #expect(try ListStore.canonicalPayload(["n": 38.5]) != ListStore.canonicalPayload(["n": 38]))
        #expect(try ListStore.canonicalPayload(["n": "38"]) != ListStore.canonicalPayload(["n": 38]))
    }

    @Test func aPayloadOfAnotherTypeIsADecodingErrorNamingTheRowAndWhere() throws {
        let store = try ListStore.inMemory()
        let (section, _) = try store.insertSection(title: "s")
        let (id, _) = try store.insertRow("r", payload: Address(street: "Elm", city: "Oslo"), intoSection: section)
        let row = try store.row(id: id)
        do {
            _ = try row.payload(as: Contact.self)
            Issue.record("decoded an Address as a Contact")
        } catch let error as ListStoreError {
            guard case .payloadNotDecodable(let failing, let type, let reason) = error.reason else { throw error }
            #expect(failing == id)
            #expect(type == "Contact")
            #expect(reason.contains("\"name\""), "\(reason)")
            let message = ListStoreError.payloadNotDecodable(row: failing, type: type, reason: reason).description
            #expect(message.contains("row #\(id.rawValue)") && !message.contains("\n"), "\(message)")
        }
        struct Typed: Decodable { let street: Int }
        #expect {
            try row.payload(as: Typed.self)
        } throws: { error in
            guard case .payloadNotDecodable(_, _, let reason)? = (error as? ListStoreError)?.reason else { return false }
            return reason.contains(".street")
        }
        // Text payloads written untyped decode too, when they hold the type.
        let (untyped, _) = try store.insertRow(NewRow(title: "t", payload: #"{ "city" : null, "street": "x" }"#), intoSection: section)
        #expect(try store.row(id: untyped).payload(as: Address.self) == Address(street: "x", city: nil))
    }

    @Test func valuesJSONCannotCarryAreRefusedAndNothingIsWritten() throws {
        let store = try ListStore.inMemory()
        let (section, _) = try store.insertSection(title: "s")
        let before = try store.snapshot()
        #expect {
            try store.insertRow("nan", payload: ["x": Double.nan], intoSection: section)
        } throws: { error in
            guard case .payloadNotEncodable(let type, _)? = (error as? ListStoreError)?.reason else { return false }
            return type.contains("Dictionary")
        }
        struct Failing: Encodable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "never encodes"))
            }
        }
        #expect(throws: ListStoreError.self) { try store.insertRow("fails", payload: Failing(), intoSection: section) }
        // Payload validation still applies: nested deeper than SQLite's JSON functions read.
        indirect enum Nest: Encodable {
            case leaf
            case node(Nest)
            func encode(to encoder: any Encoder) throws {
                var container = encoder.unkeyedContainer()
                if case .node(let inner) = self { try container.encode(inner) }
            }
        }
        // Foundation's JSONEncoder stops first on Linux (it writes at most 511 levels); either way the
        // error is typed and nothing is written.
        var deep = Nest.leaf
        for _ in 0..<ListStore.maximumPayloadDepth { deep = .node(deep) }
        #expect {
            try store.insertRow("deep", payload: deep, intoSection: section)
        } throws: { error in
            switch (error as? ListStoreError)?.reason {
            case .payloadTooDeep?, .payloadNotEncodable?: return "\(error)".count < 400 && !"\(error)".contains("\n")
            default: return false
            }
        }
        var fits = Nest.leaf
        for _ in 0..<500 { fits = .node(fits) }
        let (fitting, _) = try store.insertRow("fits", payload: fits, intoSection: section)
        try store.deleteRows(ids: [fitting])
        #expect(try store.snapshot() == before)
    }
}
