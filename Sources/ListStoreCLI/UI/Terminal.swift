#if canImport(CNcurses)
    import CNcurses
    import Foundation

    /// The terminal through ncurses: keys in, frames out. Nothing else in the UI knows about curses.
    final class Terminal {
        /// How long a read waits for a key before the screen looks at live updates again.
        static let readTimeoutMilliseconds: Int32 = 50

        private var running = false

        /// Takes over the terminal (alternate screen, no echo, keypad). SIGINT and SIGTERM then only set a
        /// flag (``caughtSignal``), so that the terminal is restored before the process ends.
        init() throws {
            cn_catch_termination_signals()
            guard cn_start(Self.readTimeoutMilliseconds) == 0 else {
                throw CommandFailure("cannot open the terminal (TERM=\(environmentTERM)); set TERM to your terminal's type, e.g. TERM=xterm-256color")
            }
            running = true
        }

        deinit { restore() }

        /// Gives the terminal back as it was. Safe to call more than once.
        func restore() {
            guard running else { return }
            running = false
            cn_stop()
        }

        /// SIGINT or SIGTERM, once one arrived.
        var caughtSignal: Int32? {
            let signal = cn_caught_signal()
            return signal == 0 ? nil : signal
        }

        var size: (width: Int, height: Int) { (Int(cn_columns()), Int(cn_lines())) }

        /// The next key, or nil when none came within the read timeout.
        func readKey() -> UIKey? {
            var value: UInt32 = 0
            switch cn_read(&value) {
            case Int32(CN_CHARACTER):
                switch value {
                case 27: return .escape
                case 10, 13: return .enter
                case 8, 127: return .backspace
                default: return Unicode.Scalar(value).map(UIKey.character)
                }
            case Int32(CN_KEY):
                let code = Int32(bitPattern: value)
                let keys: [(Int32, UIKey)] = [
                    (CN_KEY_UP, .up), (CN_KEY_DOWN, .down), (CN_KEY_LEFT, .left), (CN_KEY_RIGHT, .right),
                    (CN_KEY_PAGE_UP, .pageUp), (CN_KEY_PAGE_DOWN, .pageDown), (CN_KEY_HOME, .home), (CN_KEY_END, .end),
                    (CN_KEY_BACKSPACE, .backspace), (CN_KEY_DELETE, .delete), (CN_KEY_ENTER, .enter), (CN_KEY_RESIZE, .resize),
                ]
                return keys.first { $0.0 == code }?.1
            default:
                return nil
            }
        }

        /// Draws `frame` and sends what changed to the terminal.
        func draw(_ frame: ScreenFrame) {
            cn_erase()
            for (row, line) in frame.lines.enumerated() {
                let wide = line.text.unicodeScalars.map { wchar_t(bitPattern: $0.value) } + [0]
                wide.withUnsafeBufferPointer { text in
                    cn_draw(Int32(row), 0, text.baseAddress, Self.attributes(line.style), 1)
                }
            }
            if let cursor = frame.cursor {
                cn_cursor(1, Int32(cursor.row), Int32(cursor.column))
            } else {
                cn_cursor(0, 0, 0)
            }
            cn_refresh()
        }

        private static func attributes(_ style: ScreenLine.Style) -> Int32 {
            switch style {
            case .plain, .status: Int32(CN_PLAIN)
            case .header: Int32(CN_BOLD)
            case .cursor, .help: Int32(CN_REVERSE)
            case .cursorHeader: Int32(CN_REVERSE | CN_BOLD)
            case .error: Int32(CN_BOLD)
            }
        }

        private var environmentTERM: String {
            ProcessInfo.processInfo.environment["TERM"] ?? "unset"
        }
    }
#endif
