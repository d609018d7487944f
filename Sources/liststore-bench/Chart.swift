import Foundation
import SQLiteLayer

/// The benchmark's chart (`--chart FILE.svg`): the main table's "insert in middle" (one section) against n,
/// on log–log scales, for ListStore, the dense C baseline (the peers' recipe) and the physical limit. The
/// SVG is written by hand: one polyline with markers per series, a legend, and a note of the run.
enum Chart {
    /// One line of the chart: its legend (a name and what it runs) and a median time in seconds at each n.
    struct Series {
        /// The polyline's `id` (`.ci/run` checks that each series has one).
        let id: String
        let name: String
        let detail: String
        let points: [(n: Int, seconds: Double)]
    }

    /// The operation charted: an insert in the middle of one section, where the dense recipe renumbers
    /// half of the section and ListStore and the limit renumber nothing.
    static let operation = "insert in middle"

    /// The three series of ``operation`` from the main table's results.
    static func series(from results: [MainTable.Result]) -> [Series] {
        let rows = results.filter { $0.operation == operation }.sorted { $0.n < $1.n }
        return [
            Series(
                id: "series-liststore", name: "ListStore", detail: "sparse positions: nothing renumbered",
                points: rows.map { ($0.n, $0.listStore) }),
            Series(
                id: "series-dense", name: "C dense: the peers' recipe", detail: "the positions after it shifted, then INSERT",
                points: rows.map { ($0.n, $0.dense) }),
            Series(
                id: "series-limit", name: "limit: the least SQLite does", detail: "one INSERT on the plain table",
                points: rows.map { ($0.n, $0.limit) }),
        ]
    }

    /// A line about the run for the chart's foot: when, how, on what, and the load average (1 minute)
    /// before and after it.
    static func note(command: String, loadBefore: String) -> String {
        let date = ISO8601DateFormatter.string(from: Date(), timeZone: TimeZone(identifier: "UTC") ?? .current, formatOptions: [.withInternetDateTime])
        var name = utsname()
        uname(&name)
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        #if os(Linux)
            let cpuInfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
            let modelLine = cpuInfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            let model = modelLine.map { ($0.split(separator: ":").last ?? "").trimmingCharacters(in: .whitespaces) } ?? "CPU"
        #else
            let model = "CPU"
        #endif
        let sqlite = (try? Connection(path: ":memory:", mode: .readWriteCreate).scalarText("SELECT sqlite_version()")) ?? nil
        return "\(date) · \(command) · \(ProcessInfo.processInfo.activeProcessorCount) × \(model) · \(text(name.sysname)) \(text(name.release)) "
            + "\(text(name.machine)) · SQLite \(sqlite ?? "?") · load \(loadBefore) → \(loadAverage())"
    }

    /// The 1-minute load average (`getloadavg`), or "?".
    static func loadAverage() -> String {
        var averages = [0.0, 0.0, 0.0]
        guard getloadavg(&averages, 3) >= 1 else { return "?" }
        return String(format: "%.2f", averages[0])
    }

    // MARK: - Drawing

    private static let width = 900.0
    private static let height = 500.0
    private static let plot = (left: 84.0, top: 70.0, right: 590.0, bottom: 420.0)
    private static let styles = [
        (color: "#1f6fb4", marker: "circle", dash: ""),
        (color: "#c62828", marker: "square", dash: ""),
        (color: "#444444", marker: "diamond", dash: " stroke-dasharray=\"6 4\""),
    ]

    /// The SVG text: log–log axes with a labelled tick at each power of ten (and smaller ones at 2–9
    /// times it, 2 and 5 labelled on an axis of at most two decades), each series as a polyline with a marker at each measured n, the legend on the right
    /// (with each series' time at the largest n), `title` on top and `note` at the foot.
    static func svg(title: String, subtitle: String, note: String, series: [Series]) -> String {
        let points = series.flatMap(\.points).filter { $0.n > 0 && $0.seconds.isFinite && $0.seconds > 0 }
        let xs = decades(points.map { Double($0.n) })
        let ys = decades(points.map(\.seconds))
        func x(_ n: Double) -> Double { plot.left + (log10(n) - xs.lowerBound) / (xs.upperBound - xs.lowerBound) * (plot.right - plot.left) }
        func y(_ seconds: Double) -> Double { plot.bottom - (log10(seconds) - ys.lowerBound) / (ys.upperBound - ys.lowerBound) * (plot.bottom - plot.top) }

        var svg = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(f(width))" height="\(f(height))" viewBox="0 0 \(f(width)) \(f(height))" \
            font-family="DejaVu Sans, Helvetica, Arial, sans-serif">
            <title>\(escape(title))</title>
            <rect width="100%" height="100%" fill="#ffffff"/>
            <text x="\(f(width / 2))" y="26" font-size="17" font-weight="bold" text-anchor="middle">\(escape(title))</text>
            <text x="\(f(width / 2))" y="46" font-size="12" fill="#444444" text-anchor="middle">\(escape(subtitle))</text>

            """
        // Grid and ticks: a labelled line at each power of ten, a faint one at 2–9 times it.
        for decade in Int(xs.lowerBound)...Int(xs.upperBound) {
            for step in 1...9 where step == 1 || decade < Int(xs.upperBound) {
                let px = x(Double(step) * pow(10, Double(decade)))
                svg += line(px, plot.top, px, plot.bottom, step == 1 ? "#d0d0d0" : "#efefef")
                svg += line(px, plot.bottom, px, plot.bottom + (step == 1 ? 6 : 3), "#000000")
                if step == 1 || (xs.upperBound - xs.lowerBound <= 2 && (step == 2 || step == 5)) {
                    svg += text(px, plot.bottom + 20, count(Double(step) * pow(10, Double(decade))), size: step == 1 ? 11 : 10, anchor: "middle")
                }
            }
        }
        for decade in Int(ys.lowerBound)...Int(ys.upperBound) {
            for step in 1...9 where step == 1 || decade < Int(ys.upperBound) {
                let py = y(Double(step) * pow(10, Double(decade)))
                svg += line(plot.left, py, plot.right, py, step == 1 ? "#d0d0d0" : "#efefef")
                svg += line(plot.left - (step == 1 ? 6 : 3), py, plot.left, py, "#000000")
                if step == 1 || (ys.upperBound - ys.lowerBound <= 2 && (step == 2 || step == 5)) {
                    svg += text(plot.left - 9, py + 4, time(Double(step) * pow(10, Double(decade))), size: step == 1 ? 11 : 10, anchor: "end")
                }
            }
        }
        svg += "<rect x=\"\(f(plot.left))\" y=\"\(f(plot.top))\" width=\"\(f(plot.right - plot.left))\" height=\"\(f(plot.bottom - plot.top))\" "
        svg += "fill=\"none\" stroke=\"#000000\"/>\n"
        svg += text((plot.left + plot.right) / 2, plot.bottom + 42, "n, rows in the section (log scale)", size: 12, anchor: "middle")
        svg += "<text x=\"20\" y=\"\(f((plot.top + plot.bottom) / 2))\" font-size=\"12\" text-anchor=\"middle\" "
        svg += "transform=\"rotate(-90 20 \(f((plot.top + plot.bottom) / 2)))\">median time of one insert (log scale)</text>\n"

        // The series, then the legend.
        for (index, series) in series.enumerated() {
            let style = styles[index % styles.count]
            let shown = series.points.filter { $0.n > 0 && $0.seconds.isFinite && $0.seconds > 0 }
            let coordinates = shown.map { "\(f(x(Double($0.n)))),\(f(y($0.seconds)))" }.joined(separator: " ")
            svg += "<polyline id=\"\(escape(series.id))\" points=\"\(coordinates)\" fill=\"none\" stroke=\"\(style.color)\" stroke-width=\"2\"\(style.dash)/>\n"
            for point in shown { svg += marker(style.marker, x(Double(point.n)), y(point.seconds), style.color) }

            let top = plot.top + 8 + Double(index) * 62
            let legendX = plot.right + 22
            svg += line(legendX, top + 6, legendX + 28, top + 6, style.color, width: 2, dash: style.dash)
            svg += marker(style.marker, legendX + 14, top + 6, style.color)
            svg += text(legendX + 38, top + 10, series.name, size: 13, weight: "bold")
            svg += text(legendX + 38, top + 27, series.detail, size: 10.5, color: "#444444")
            if let last = shown.last {
                svg += text(legendX + 38, top + 43, "\(Measurement.format(last.seconds)) at n = \(count(Double(last.n)))", size: 10.5, color: "#444444")
            }
        }
        svg += text(20, height - 14, note, size: 10.5, color: "#555555")
        return svg + "</svg>\n"
    }

    /// The powers of ten (their exponents) that enclose `values`: at least one decade.
    private static func decades(_ values: [Double]) -> ClosedRange<Double> {
        guard let low = values.min(), let high = values.max() else { return 0...1 }
        let lower = (log10(low) + 1e-9).rounded(.down)
        return lower...max(lower + 1, (log10(high) - 1e-9).rounded(.up))
    }

    private static func marker(_ shape: String, _ x: Double, _ y: Double, _ color: String) -> String {
        switch shape {
        case "square": "<rect x=\"\(f(x - 4))\" y=\"\(f(y - 4))\" width=\"8\" height=\"8\" fill=\"\(color)\"/>\n"
        case "diamond": "<polygon points=\"\(f(x)),\(f(y - 5.5)) \(f(x + 5.5)),\(f(y)) \(f(x)),\(f(y + 5.5)) \(f(x - 5.5)),\(f(y))\" fill=\"\(color)\"/>\n"
        default: "<circle cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"4.5\" fill=\"\(color)\"/>\n"
        }
    }

    private static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ color: String, width: Double = 1, dash: String = "") -> String {
        "<line x1=\"\(f(x1))\" y1=\"\(f(y1))\" x2=\"\(f(x2))\" y2=\"\(f(y2))\" stroke=\"\(color)\" stroke-width=\"\(f(width))\"\(dash)/>\n"
    }

    private static func text(_ x: Double, _ y: Double, _ content: String, size: Double, anchor: String = "start", weight: String = "normal", color: String = "#000000")
        -> String
    {
        "<text x=\"\(f(x))\" y=\"\(f(y))\" font-size=\"\(f(size))\" font-weight=\"\(weight)\" fill=\"\(color)\" text-anchor=\"\(anchor)\">\(escape(content))</text>\n"
    }

    /// `1,000,000`.
    private static func count(_ value: Double) -> String {
        let digits = String(Int(value.rounded()))
        return digits.enumerated().map { index, digit in (index > 0 && (digits.count - index) % 3 == 0 ? "," : "") + String(digit) }.joined()
    }

    /// A tick's time as its label: `100 µs`, `2 ms`, `10 s`.
    private static func time(_ seconds: Double) -> String {
        let (value, unit) = seconds < 1e-3 ? (seconds * 1e6, "µs") : seconds < 1 ? (seconds * 1e3, "ms") : (seconds, "s")
        return (value < 1 ? String(format: "%g", value) : count(value)) + " " + unit
    }

    /// A coordinate with at most one decimal.
    private static func f(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.1f", rounded)
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }
}
