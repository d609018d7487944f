import TestSupport
import Testing

@testable import ListStore

/// Order keys (schema 15): where an element stands among its siblings on every copy of a list. A key made
/// between two others lies between them; the keys of one write's run share a prefix, so two runs made at
/// one spot at once never interleave; keys stay short for appends, prepends and repeated inserts at one spot.
@Suite struct OrderKeyTests {
    static func key(_ lower: [UInt8]?, _ upper: [UInt8]?, stamp: Int64 = 1 << 20, ordinal: UInt32 = 1) -> [UInt8] {
        OrderKey.keys(between: lower, and: upper, count: 1, stamp: stamp, firstOrdinal: ordinal)[0]
    }

    static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool { a.lexicographicallyPrecedes(b) }

    @Test func aKeyMadeBetweenTwoKeysLiesBetweenThemWhateverTheyAre() {
        var random = SeededGenerator(seed: 15_001)
        var keys: [[UInt8]] = [Self.key(nil, nil)]
        for step in 0..<5_000 {
            let index = Int.random(in: 0...keys.count, using: &random)
            let lower = index > 0 ? keys[index - 1] : nil
            let upper = index < keys.count ? keys[index] : nil
            let made = OrderKey.keys(between: lower, and: upper, count: 3, stamp: Int64(step + 1) << 20 | 7, firstOrdinal: UInt32(step * 3 + 1))
            for key in made {
                if let lower { #expect(Self.precedes(lower, key)) }
                if let upper { #expect(Self.precedes(key, upper)) }
                #expect(key.last == 1)
            }
            #expect(Self.precedes(made[0], made[1]) && Self.precedes(made[1], made[2]))
            keys.insert(contentsOf: made, at: index)
        }
        #expect(zip(keys, keys.dropFirst()).allSatisfy { Self.precedes($0, $1) })
    }

    @Test func twoRunsMadeAtOneSpotAtOnceNeverInterleaveAndOrderByStamp() {
        let lower = Self.key(nil, nil)
        let upper = Self.key(lower, nil, stamp: 2 << 20)
        let phone = OrderKey.keys(between: lower, and: upper, count: 5, stamp: 10 << 20 | 1, firstOrdinal: 1)
        let laptop = OrderKey.keys(between: lower, and: upper, count: 5, stamp: 10 << 20 | 2, firstOrdinal: 1)
        let merged = (phone + laptop).sorted { Self.precedes($0, $1) }
        #expect(merged == phone + laptop)
        // The same runs made with the stamps the other way round: the laptop's now first.
        let earlierLaptop = OrderKey.keys(between: lower, and: upper, count: 5, stamp: 9 << 20 | 2, firstOrdinal: 1)
        #expect((phone + earlierLaptop).sorted { Self.precedes($0, $1) } == earlierLaptop + phone)
    }

    @Test func appendsPrependsAndInsertsAtOneSpotKeepKeysShort() {
        var last = Self.key(nil, nil)
        var first = last
        for step in 1...10_000 {
            last = Self.key(last, nil, stamp: Int64(step) << 20)
            first = Self.key(nil, first, stamp: Int64(step) << 20)
        }
        #expect(last.count == 8 + OrderKey.suffixLength && first.count == 8 + OrderKey.suffixLength)
        // 1,000 inserts right after one element, each before the one inserted last (the worst spot), and
        // 1,000 typed one after another before a fixed element.
        let anchor = Self.key(nil, nil)
        let next = Self.key(anchor, nil)
        var newest = next
        var typed = anchor
        var longest = 0
        for step in 1...1_000 {
            newest = Self.key(anchor, newest, stamp: Int64(step) << 20)
            typed = Self.key(typed, next, stamp: Int64(step) << 20)
            longest = max(longest, newest.count, typed.count)
        }
        #expect(Self.precedes(anchor, newest) && Self.precedes(typed, next))
        #expect(longest <= 8 + OrderKey.suffixLength + 1_000 / 7 + 2, "longest key \(longest) bytes")
    }

    @Test func baseKeysFollowPositionsAndCarryStampZero() {
        var random = SeededGenerator(seed: 15_002)
        let positions = (0..<2_000).map { _ in Int64.random(in: Int64.min...Int64.max, using: &random) } + [Int64.min, -1, 0, 1, Int64.max]
        let keys = positions.map(OrderKey.baseKey(position:))
        for (a, b) in zip(positions, keys) {
            for (c, d) in zip(positions.prefix(50), keys.prefix(50)) where a != c { #expect((a < c) == Self.precedes(b, d)) }
            #expect(OrderKey.stamp(of: b) == 0)
        }
        #expect(OrderKey.stamp(of: Self.key(nil, nil, stamp: 123 << 20 | 5)) == Int64(123 << 20 | 5))
    }

    @Test func neighboursOutOfOrderGiveAKeyAfterTheLowerOne() {
        let low = Self.key(nil, nil)
        let high = Self.key(low, nil)
        let made = Self.key(high, low)
        #expect(Self.precedes(high, made))
    }
}
