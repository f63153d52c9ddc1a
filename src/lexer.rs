//! Lexer (logos) plus the layout step that emits NEWLINE / INDENT / DEDENT.
