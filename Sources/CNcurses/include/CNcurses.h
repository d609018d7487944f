#ifndef CNCURSES_H
#define CNCURSES_H

/* The terminal for `liststore ui`: a few plain functions over ncurses (wide-character build), so
   Swift never touches curses' macros, global variables or variadic functions. */

#include <wchar.h>

/* Text attributes for cn_draw, combined with |. */
enum {
    CN_PLAIN = 0,
    CN_BOLD = 1,
    CN_REVERSE = 2,
    CN_DIM = 4,
};

/* What cn_read returned. */
enum {
    CN_NOTHING = 0,   /* no input within the timeout (or a signal interrupted the wait) */
    CN_CHARACTER = 1, /* a character: value is a Unicode scalar */
    CN_KEY = 2,       /* a function key: value is one of the CN_KEY_ codes */
};

/* Function keys (ncurses' codes). */
extern const int CN_KEY_UP, CN_KEY_DOWN, CN_KEY_LEFT, CN_KEY_RIGHT, CN_KEY_PAGE_UP, CN_KEY_PAGE_DOWN,
    CN_KEY_HOME, CN_KEY_END, CN_KEY_BACKSPACE, CN_KEY_DELETE, CN_KEY_ENTER, CN_KEY_RESIZE;

/* Makes SIGINT and SIGTERM set a flag instead of ending the process (call before cn_start, so ncurses
   keeps these handlers), so the terminal is restored before the program ends. */
void cn_catch_termination_signals(void);
/* The signal caught by those handlers, or 0. */
int cn_caught_signal(void);

/* Selects the user's locale (C.UTF-8 when it is not a UTF-8 one), opens the terminal on standard
   input and output in cbreak mode without echo, with the keypad and a short Escape delay. Returns 0 on
   success, -1 when the terminal cannot be opened (unknown TERM). */
int cn_start(int timeout_milliseconds);
/* Restores the terminal as it was. Safe to call more than once. */
void cn_stop(void);
/* Waits up to the timeout for one key or character. */
int cn_read(unsigned int *value);

int cn_lines(void);
int cn_columns(void);
/* Clears the screen buffer (nothing is sent until cn_refresh). */
void cn_erase(void);
/* Draws NUL-terminated `text` at row y, column x with `attributes`, then clears to the end of the line
   when `clear_rest` is non-zero. */
void cn_draw(int y, int x, const wchar_t *text, int attributes, int clear_rest);
/* Shows the cursor at (y, x), or hides it when visible is 0. */
void cn_cursor(int visible, int y, int x);
/* Sends the changes to the terminal. */
void cn_refresh(void);

#endif
