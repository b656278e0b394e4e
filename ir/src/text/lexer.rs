//! Tokens of the MLIR text format, with byte offsets into the source.
//!
//! The lexer is a cursor over the source: the parser asks for one token at a time and may
//! [`seek`](Lexer::seek) back to re-read an attribute. `tensor<...>` is one token (its body
//! `8x16xf32` is not made of ordinary tokens), everything else follows MLIR's lexical rules:
//! bare identifiers may contain `.` and `$`, `%`/`@`/`#`/`^`/`!` prefix identifiers, integers
//! (decimal or `0x` hex), floats with a `.`, strings with `\"`, `\\`, `\n`, `\t` and `\XX`
//! escapes, and `//` comments to the end of the line.

use crate::error::{ParseError, Pos};
use std::fmt;

/// What a token is.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok<'a> {
    Eof,
    LParen,
    RParen,
    LBrace,
    RBrace,
    LSquare,
    RSquare,
    Less,
    Greater,
    Comma,
    Colon,
    Equal,
    /// `->`
    Arrow,
    Question,
    Minus,
    Plus,
    Star,
    /// `%name` or `%name#3`: an SSA value, with its result number if one is given.
    Value {
        name: &'a str,
        index: Option<usize>,
    },
    /// `@name` or `@"quoted name"`: a symbol, unquoted.
    Symbol(String),
    /// `#name.sub`: an attribute alias or dialect attribute, without the `#`.
    Hash(&'a str),
    /// `^bb0`: a block label, without the `^`.
    Caret(&'a str),
    /// `!name.sub`: a dialect type, without the `!`.
    Bang(&'a str),
    /// A bare identifier or keyword: `stablehlo.add`, `dense`, `x`, `f32`.
    Ident(&'a str),
    /// An integer literal as written: `12` or `0x7FC00000`.
    Int(&'a str),
    /// A float literal as written: `1.5`, `9.99999974E-6`.
    Float(&'a str),
    /// A string literal, with its escapes decoded.
    Str(String),
    /// `tensor<...>`: the text between the angle brackets.
    Tensor(&'a str),
}

impl fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let punct = |f: &mut fmt::Formatter<'_>, s: &str| write!(f, "'{s}'");
        match self {
            Tok::Eof => f.write_str("end of input"),
            Tok::LParen => punct(f, "("),
            Tok::RParen => punct(f, ")"),
            Tok::LBrace => punct(f, "{"),
            Tok::RBrace => punct(f, "}"),
            Tok::LSquare => punct(f, "["),
            Tok::RSquare => punct(f, "]"),
            Tok::Less => punct(f, "<"),
            Tok::Greater => punct(f, ">"),
            Tok::Comma => punct(f, ","),
            Tok::Colon => punct(f, ":"),
            Tok::Equal => punct(f, "="),
            Tok::Arrow => punct(f, "->"),
            Tok::Question => punct(f, "?"),
            Tok::Minus => punct(f, "-"),
            Tok::Plus => punct(f, "+"),
            Tok::Star => punct(f, "*"),
            Tok::Value { name, index: None } => write!(f, "value %{name}"),
            Tok::Value {
                name,
                index: Some(i),
            } => write!(f, "value %{name}#{i}"),
            Tok::Symbol(s) => write!(f, "symbol @{s}"),
            Tok::Hash(s) => write!(f, "'#{s}'"),
            Tok::Caret(s) => write!(f, "block label ^{s}"),
            Tok::Bang(s) => write!(f, "type '!{s}'"),
            Tok::Ident(s) => write!(f, "'{s}'"),
            Tok::Int(s) => write!(f, "integer {s}"),
            Tok::Float(s) => write!(f, "float {s}"),
            Tok::Str(s) => write!(f, "string {s:?}"),
            Tok::Tensor(s) => write!(f, "type tensor<{s}>"),
        }
    }
}

/// A token and the byte range it covers.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Token<'a> {
    pub tok: Tok<'a>,
    pub start: usize,
    pub end: usize,
}

/// A lexing failure at a byte offset.
#[derive(Clone, Debug)]
pub(super) struct LexError {
    pub offset: usize,
    pub message: String,
}

/// A cursor over the source text.
#[derive(Clone)]
pub(super) struct Lexer<'a> {
    src: &'a str,
    pos: usize,
}

fn is_id_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_id_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.')
}

/// Characters of a suffix identifier (`%name`, `#name`, `^name`): MLIR adds `-`.
fn is_suffix_char(c: u8) -> bool {
    is_id_char(c) || c == b'-'
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Lexer<'a> {
        Lexer { src, pos: 0 }
    }

    /// Moves the cursor to a byte offset (a token start seen earlier).
    pub fn seek(&mut self, offset: usize) {
        self.pos = offset.min(self.src.len());
    }

    fn peek_byte(&self, ahead: usize) -> Option<u8> {
        self.src.as_bytes().get(self.pos + ahead).copied()
    }

    fn err<T>(&self, offset: usize, message: impl Into<String>) -> Result<T, LexError> {
        Err(LexError {
            offset,
            message: message.into(),
        })
    }

    fn skip_trivia(&mut self) {
        let bytes = self.src.as_bytes();
        loop {
            match bytes.get(self.pos) {
                Some(c) if c.is_ascii_whitespace() => self.pos += 1,
                Some(b'/') if bytes.get(self.pos + 1) == Some(&b'/') => {
                    while let Some(&c) = bytes.get(self.pos) {
                        if c == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                _ => return,
            }
        }
    }

    /// Consumes bytes while `pred` holds and returns them.
    fn take_while(&mut self, pred: impl Fn(u8) -> bool) -> &'a str {
        let start = self.pos;
        while self.peek_byte(0).is_some_and(&pred) {
            self.pos += 1;
        }
        &self.src[start..self.pos]
    }

    /// Reads the next token.
    pub fn next_token(&mut self) -> Result<Token<'a>, LexError> {
        self.skip_trivia();
        let start = self.pos;
        let Some(c) = self.peek_byte(0) else {
            return Ok(Token {
                tok: Tok::Eof,
                start,
                end: start,
            });
        };
        let tok = match c {
            b'(' | b')' | b'{' | b'}' | b'[' | b']' | b'<' | b'>' | b',' | b':' | b'=' | b'?'
            | b'+' | b'*' => {
                self.pos += 1;
                match c {
                    b'(' => Tok::LParen,
                    b')' => Tok::RParen,
                    b'{' => Tok::LBrace,
                    b'}' => Tok::RBrace,
                    b'[' => Tok::LSquare,
                    b']' => Tok::RSquare,
                    b'<' => Tok::Less,
                    b'>' => Tok::Greater,
                    b',' => Tok::Comma,
                    b':' => Tok::Colon,
                    b'=' => Tok::Equal,
                    b'?' => Tok::Question,
                    b'+' => Tok::Plus,
                    _ => Tok::Star,
                }
            }
            b'-' => {
                self.pos += 1;
                if self.peek_byte(0) == Some(b'>') {
                    self.pos += 1;
                    Tok::Arrow
                } else {
                    Tok::Minus
                }
            }
            b'"' => Tok::Str(self.string()?),
            b'%' => self.value()?,
            b'@' => {
                self.pos += 1;
                if self.peek_byte(0) == Some(b'"') {
                    Tok::Symbol(self.string()?)
                } else {
                    let name = self.take_while(is_suffix_char);
                    if name.is_empty() {
                        return self.err(start, "expected a symbol name after '@'");
                    }
                    Tok::Symbol(name.to_string())
                }
            }
            b'#' | b'^' | b'!' => {
                self.pos += 1;
                let name = self.take_while(is_suffix_char);
                if name.is_empty() {
                    return self.err(
                        start,
                        format!("expected an identifier after '{}'", c as char),
                    );
                }
                match c {
                    b'#' => Tok::Hash(name),
                    b'^' => Tok::Caret(name),
                    _ => Tok::Bang(name),
                }
            }
            b'0'..=b'9' => self.number()?,
            c if is_id_start(c) => {
                let word = self.take_while(is_id_char);
                if word == "tensor" && self.peek_byte(0) == Some(b'<') {
                    self.tensor_body(start)?
                } else {
                    Tok::Ident(word)
                }
            }
            _ => {
                let ch = self.src[start..].chars().next().unwrap_or('?');
                return self.err(start, format!("unexpected character {ch:?}"));
            }
        };
        Ok(Token {
            tok,
            start,
            end: self.pos,
        })
    }

    /// `%name` with an optional `#N` result number.
    fn value(&mut self) -> Result<Tok<'a>, LexError> {
        let start = self.pos;
        self.pos += 1;
        let name = self.take_while(is_suffix_char);
        if name.is_empty() {
            return self.err(start, "expected a value name after '%'");
        }
        let mut index = None;
        if self.peek_byte(0) == Some(b'#') && self.peek_byte(1).is_some_and(|c| c.is_ascii_digit())
        {
            self.pos += 1;
            let digits_at = self.pos;
            let digits = self.take_while(|c| c.is_ascii_digit());
            match digits.parse::<usize>() {
                Ok(i) => index = Some(i),
                Err(_) => {
                    return self.err(digits_at, format!("result number {digits} is too large"));
                }
            }
        }
        Ok(Tok::Value { name, index })
    }

    fn number(&mut self) -> Result<Tok<'a>, LexError> {
        let start = self.pos;
        if self.peek_byte(0) == Some(b'0') && self.peek_byte(1) == Some(b'x') {
            self.pos += 2;
            let digits = self.take_while(|c| c.is_ascii_hexdigit());
            if digits.is_empty() {
                return self.err(start, "expected hexadecimal digits after '0x'");
            }
            return Ok(Tok::Int(&self.src[start..self.pos]));
        }
        self.take_while(|c| c.is_ascii_digit());
        if self.peek_byte(0) != Some(b'.') {
            return Ok(Tok::Int(&self.src[start..self.pos]));
        }
        self.pos += 1;
        self.take_while(|c| c.is_ascii_digit());
        if matches!(self.peek_byte(0), Some(b'e' | b'E')) {
            let sign = usize::from(matches!(self.peek_byte(1), Some(b'+' | b'-')));
            if self.peek_byte(1 + sign).is_some_and(|c| c.is_ascii_digit()) {
                self.pos += 1 + sign;
                self.take_while(|c| c.is_ascii_digit());
            }
        }
        Ok(Tok::Float(&self.src[start..self.pos]))
    }

    /// A string literal starting at the cursor (on the opening quote); returns it decoded.
    fn string(&mut self) -> Result<String, LexError> {
        let start = self.pos;
        self.pos += 1;
        let mut bytes = Vec::new();
        loop {
            let Some(c) = self.peek_byte(0) else {
                return self.err(start, "unterminated string: add the closing '\"'");
            };
            self.pos += 1;
            match c {
                b'"' => break,
                b'\n' => {
                    return self.err(
                        start,
                        "unterminated string: add the closing '\"' (a string ends on the line it starts)",
                    );
                }
                b'\\' => {
                    let at = self.pos - 1;
                    let Some(e) = self.peek_byte(0) else {
                        return self.err(start, "unterminated string: add the closing '\"'");
                    };
                    self.pos += 1;
                    match e {
                        b'"' | b'\\' => bytes.push(e),
                        b'n' => bytes.push(b'\n'),
                        b't' => bytes.push(b'\t'),
                        h1 if h1.is_ascii_hexdigit() => {
                            let h2 = self.peek_byte(0).filter(|h| h.is_ascii_hexdigit());
                            let Some(h2) = h2 else {
                                return self.err(at, "bad escape in string: '\\' must be followed by two hex digits");
                            };
                            self.pos += 1;
                            let hex = |h: u8| (h as char).to_digit(16).unwrap_or(0) as u8;
                            bytes.push(hex(h1) * 16 + hex(h2));
                        }
                        _ => {
                            return self.err(
                                at,
                                "bad escape in string: use \\\", \\\\, \\n, \\t or \\XX (two hex digits)",
                            )
                        }
                    }
                }
                _ => bytes.push(c),
            }
        }
        String::from_utf8(bytes).or_else(|_| {
            self.err(
                start,
                "string is not valid UTF-8 after decoding its escapes",
            )
        })
    }

    /// The body of `tensor<...>`, the cursor being on `<`.
    fn tensor_body(&mut self, start: usize) -> Result<Tok<'a>, LexError> {
        self.pos += 1;
        let body_start = self.pos;
        let mut depth = 1usize;
        while let Some(c) = self.peek_byte(0) {
            match c {
                b'<' => depth += 1,
                b'>' => {
                    depth -= 1;
                    if depth == 0 {
                        let body = &self.src[body_start..self.pos];
                        self.pos += 1;
                        return Ok(Tok::Tensor(body));
                    }
                }
                b'\n' => break,
                _ => {}
            }
            self.pos += 1;
        }
        self.err(
            start,
            "unterminated tensor type: expected '>' to close 'tensor<'",
        )
    }
}

/// The 1-based line and column (in characters) of a byte offset.
pub(super) fn position(src: &str, offset: usize) -> Pos {
    let offset = floor_char_boundary(src, offset);
    let before = &src[..offset];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = src[line_start..offset].chars().count() + 1;
    Pos { line, col }
}

fn floor_char_boundary(src: &str, offset: usize) -> usize {
    let mut o = offset.min(src.len());
    while !src.is_char_boundary(o) {
        o -= 1;
    }
    o
}

/// Widest part of a source line shown in a snippet, in characters.
const SNIPPET_WIDTH: usize = 100;

/// A parse error at a byte offset, with the source line and a caret under the column.
/// The longest word a message quotes whole; longer ones (a megabyte-long name) are cut.
const MAX_WORD: usize = 80;

/// `message` with every word longer than [`MAX_WORD`] cut to its start and its length.
fn shorten(message: String) -> String {
    if message
        .split_whitespace()
        .all(|w| w.chars().count() <= MAX_WORD)
    {
        return message;
    }
    let mut out = String::with_capacity(message.len().min(1024));
    for (i, word) in message.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let n = word.chars().count();
        if n > MAX_WORD {
            out.extend(word.chars().take(MAX_WORD / 2));
            out.push_str(&format!("... ({n} characters)"));
        } else {
            out.push_str(word);
        }
    }
    out
}

pub(super) fn error_at(src: &str, offset: usize, message: impl Into<String>) -> ParseError {
    let message = shorten(message.into());
    let pos = position(src, offset);
    let offset = floor_char_boundary(src, offset);
    let line_start = src[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = src[offset..].find('\n').map_or(src.len(), |i| offset + i);
    let line: Vec<char> = src[line_start..line_end]
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let caret = pos.col - 1;
    // Show a window of the line around the column when the line is long.
    let from = caret
        .saturating_sub(SNIPPET_WIDTH / 2)
        .min(line.len().saturating_sub(SNIPPET_WIDTH));
    let to = (from + SNIPPET_WIDTH).min(line.len());
    let mut shown: String = line.get(from..to).unwrap_or(&[]).iter().collect();
    let mut pad = caret - from;
    if from > 0 {
        shown.insert_str(0, "...");
        pad += 3;
    }
    if to < line.len() {
        shown.push_str("...");
    }
    ParseError {
        pos,
        message,
        snippet: format!("{shown}\n{}^", " ".repeat(pad)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok<'_>> {
        let mut l = Lexer::new(src);
        let mut out = Vec::new();
        loop {
            let t = l.next_token().unwrap();
            if t.tok == Tok::Eof {
                return out;
            }
            out.push(t.tok);
        }
    }

    #[test]
    fn lexes_mlir_tokens() {
        assert_eq!(
            toks(r#"%2:2 = stablehlo.reduce(%arg0 init: %cst_0) -> tensor<8x16xf32> %4#1 // c"#),
            vec![
                Tok::Value {
                    name: "2",
                    index: None
                },
                Tok::Colon,
                Tok::Int("2"),
                Tok::Equal,
                Tok::Ident("stablehlo.reduce"),
                Tok::LParen,
                Tok::Value {
                    name: "arg0",
                    index: None
                },
                Tok::Ident("init"),
                Tok::Colon,
                Tok::Value {
                    name: "cst_0",
                    index: None
                },
                Tok::RParen,
                Tok::Arrow,
                Tok::Tensor("8x16xf32"),
                Tok::Value {
                    name: "4",
                    index: Some(1)
                },
            ]
        );
        assert_eq!(
            toks(r#"-1.5e-3 0xFF800000 9.99999974E-6 "a\"b\0A" @"x y" #sdy.sharding {"a"}p1"#),
            vec![
                Tok::Minus,
                Tok::Float("1.5e-3"),
                Tok::Int("0xFF800000"),
                Tok::Float("9.99999974E-6"),
                Tok::Str("a\"b\n".into()),
                Tok::Symbol("x y".into()),
                Tok::Hash("sdy.sharding"),
                Tok::LBrace,
                Tok::Str("a".into()),
                Tok::RBrace,
                Tok::Ident("p1"),
            ]
        );
    }

    #[test]
    fn reports_unterminated_strings_with_a_caret() {
        let src = "module {\n  x = \"abc\n}";
        let e = Lexer::new(src).next_token().map(|_| ());
        assert!(e.is_ok());
        let mut l = Lexer::new(src);
        let err = loop {
            match l.next_token() {
                Ok(t) if t.tok == Tok::Eof => panic!("no error"),
                Ok(_) => {}
                Err(e) => break e,
            }
        };
        let pe = error_at(src, err.offset, err.message);
        assert_eq!(pe.pos, Pos { line: 2, col: 7 });
        assert_eq!(pe.snippet, "  x = \"abc\n      ^");
    }
}
