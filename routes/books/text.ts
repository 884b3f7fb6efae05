// The demo text of a book: not stored, written on read from the book itself, so every store
// serves the same text. Each line is numbered and distinct, so a window can be checked by eye.

export const BOOK_TEXT_LINES = 520

/** The book's text as lines (without line breaks): deterministic, and cheap enough to write per request. */
export function bookText (book: { readonly id: number, readonly title: string }): string[] {
  return Array.from({ length: BOOK_TEXT_LINES }, (_, i) => `${book.title}, line ${i + 1} of ${BOOK_TEXT_LINES}.`)
}
