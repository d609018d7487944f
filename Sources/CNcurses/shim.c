#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include "CNcurses.h"

#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#if defined(__APPLE__)
#include <curses.h>
#else
#include <ncursesw/curses.h>
#endif

const int CN_KEY_UP = KEY_UP, CN_KEY_DOWN = KEY_DOWN, CN_KEY_LEFT = KEY_LEFT, CN_KEY_RIGHT = KEY_RIGHT,
    CN_KEY_PAGE_UP = KEY_PPAGE, CN_KEY_PAGE_DOWN = KEY_NPAGE, CN_KEY_HOME = KEY_HOME, CN_KEY_END = KEY_END,
    CN_KEY_BACKSPACE = KEY_BACKSPACE, CN_KEY_DELETE = KEY_DC, CN_KEY_ENTER = KEY_ENTER, CN_KEY_RESIZE = KEY_RESIZE;

static volatile sig_atomic_t caught_signal = 0;
static SCREEN *screen = NULL;

static void remember_signal(int signal_number) { caught_signal = signal_number; }

void cn_catch_termination_signals(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = remember_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0; /* no SA_RESTART: a waiting read returns, and the loop sees the flag */
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
}

int cn_caught_signal(void) { return caught_signal; }

int cn_start(int timeout_milliseconds) {
    setlocale(LC_ALL, "");
    const char *codeset = nl_langinfo(CODESET);
    if (codeset == NULL || (strcmp(codeset, "UTF-8") != 0 && strcmp(codeset, "utf8") != 0)) {
        setlocale(LC_CTYPE, "C.UTF-8");
    }
    screen = newterm(NULL, stdout, stdin);
    if (screen == NULL) return -1;
    set_term(screen);
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
#if defined(__APPLE__)
    ESCDELAY = 25; /* the SDK's ncurses 5.7 has no set_escdelay */
#else
    set_escdelay(25);
#endif
    timeout(timeout_milliseconds);
    curs_set(0);
    return 0;
}

void cn_stop(void) {
    if (screen == NULL) return;
    endwin();
    delscreen(screen);
    screen = NULL;
}

int cn_read(unsigned int *value) {
    wint_t character = 0;
    int result = get_wch(&character);
    *value = (unsigned int)character;
    if (result == KEY_CODE_YES) return CN_KEY;
    if (result == OK) return CN_CHARACTER;
    return CN_NOTHING;
}

int cn_lines(void) { return getmaxy(stdscr); }
int cn_columns(void) { return getmaxx(stdscr); }
void cn_erase(void) { erase(); }

void cn_draw(int y, int x, const wchar_t *text, int attributes, int clear_rest) {
    attr_t attrs = A_NORMAL;
    if (attributes & CN_BOLD) attrs |= A_BOLD;
    if (attributes & CN_REVERSE) attrs |= A_REVERSE;
    if (attributes & CN_DIM) attrs |= A_DIM;
    move(y, x);
    attrset(attrs);
    addwstr(text);
    attrset(A_NORMAL);
    if (clear_rest) clrtoeol();
}

void cn_cursor(int visible, int y, int x) {
    if (visible) {
        move(y, x);
        curs_set(1);
    } else {
        curs_set(0);
    }
}

void cn_refresh(void) { refresh(); }
