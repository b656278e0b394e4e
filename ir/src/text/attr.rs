//! Reading attributes and types: tensor and function types, integer lists and arrays,
//! dense literals, StableHLO's enum and struct attributes, Shardy meshes and shardings,
//! and attribute dictionaries (unknown entries are kept as their source text).

use super::lexer::Tok;
use super::narrow::{self, Narrow};
use super::number::{parse_float_bits, parse_int};
use super::parse::{GenericAttrs, PResult, Parser};
use crate::dtype::{DType, TensorType};
use crate::literal::{Elements, Literal};
use crate::mesh::{Mesh, MeshAxis};
use crate::op::{ConvDims, DotAlgorithm, DotDims, GatherDims, Precision, ScatterDims};
use crate::sharding::{AxisRef, DimSharding, Reduction, Sharding, SubAxis};

/// Largest size of one tensor dimension.
pub(super) const MAX_DIM: usize = 1 << 40;
/// Largest number of elements of a tensor.
pub(super) const MAX_ELEMENTS: usize = 1 << 48;
/// Largest number of devices of a mesh (and size of a sub-axis).
pub(super) const MAX_DEVICES: usize = 1 << 32;
/// Deepest nesting of lists in a dense literal.
pub(super) const MAX_LIST_DEPTH: usize = 64;

/// One `key = value` of an attribute dictionary; the value is kept as a byte span of the
/// source, read later by whoever knows the key.
#[derive(Clone, Debug)]
pub(super) struct Entry {
    /// The key as written (a bare identifier, or a string with its quotes).
    pub key: String,
    /// The key's name (a string key unquoted).
    pub name: String,
    pub key_offset: usize,
    /// The value's source span; `None` for a unit attribute (`{foo}`).
    pub span: Option<(usize, usize)>,
}

/// An element of a dense literal as written, before its element type is known.
enum Elem<'a> {
    Int { negative: bool, text: &'a str },
    Float(String),
    Bool(bool),
}

/// The nested lists of a dense literal.
enum Tree<'a> {
    Leaf(Elem<'a>, usize),
    List(Vec<Tree<'a>>, usize),
}

impl<'a> Parser<'a> {
    // ----- types -----

    /// `tensor<8x16xf32>`
    pub(super) fn tensor_type(&mut self, context: &str) -> PResult<TensorType> {
        let Tok::Tensor(body) = self.tok.tok else {
            return self.err(format!(
                "expected a tensor type {context}, found {}",
                self.tok.tok
            ));
        };
        let body_offset = self.tok.start + "tensor<".len();
        let (body, complex) = match body.find("complex") {
            Some(i) => {
                let float = self.complex_part(&body[i..], body_offset + i)?;
                (format!("{}{float}", &body[..i]), true)
            }
            None => (body.to_string(), false),
        };
        // A narrow tensor (float8, int4) is held in a wider type: see `narrow.rs`.
        let element = body.rsplit_once('x').map_or(body.as_str(), |(_, e)| e);
        let narrow = Narrow::from_name(element.trim());
        let body = match narrow {
            Some(t) => format!("{}{}", &body[..body.len() - element.len()], t.held_as()),
            None => body,
        };
        let mut ty = self.tensor_body(&body, body_offset)?;
        self.narrow.push(narrow.map(|f| (f, self.tok.start)));
        if complex {
            // A complex tensor is held as pairs (real, imaginary) in an innermost
            // dimension: see `complex.rs`.
            ty.shape.push(2);
        }
        self.complex.push(complex);
        self.bump()?;
        Ok(ty)
    }

    /// The float type of `complex<f32>` or `complex<f64>`.
    fn complex_part(&self, element: &str, at: usize) -> PResult<&'static str> {
        match element.trim() {
            "complex<f32>" => Ok("f32"),
            "complex<f64>" => Ok("f64"),
            other => self.err_at(
                at,
                format!("unsupported element type `{other}`: shardc reads complex<f32> and complex<f64> (as pairs of floats); convert to one of them"),
            ),
        }
    }

    fn tensor_body(&self, body: &str, body_offset: usize) -> PResult<TensorType> {
        let mut shape = Vec::new();
        let mut elements: usize = 1;
        let mut part_start = 0;
        let parts: Vec<&str> = body.split('x').collect();
        let last = parts.len() - 1;
        for (i, part) in parts.iter().enumerate() {
            let at = body_offset + part_start;
            part_start += part.len() + 1;
            let p = part.trim();
            if i == last {
                if p.contains(',') {
                    return self.err_at(at, format!("tensor encodings are not supported: `{p}`; drop the `, ...` after the element type"));
                }
                let Some(dtype) = DType::from_name(p) else {
                    let known = known_dtypes();
                    let fix = if p.starts_with("f8") || p.starts_with("f4") || p.starts_with("f6") {
                        format!(
                            ", and of the float8 types {}; compute in one of those or in bf16 (`x.astype(jnp.bfloat16)`)",
                            narrow::FLOAT8_READ
                        )
                    } else if matches!(p, "i2" | "ui2") {
                        ", and i4 and ui4 (held as int8); hold 2-bit integers as int8 (`x.astype(jnp.int8)`) for shardc"
                            .to_string()
                    } else {
                        String::new()
                    };
                    return self.err_at(
                        at,
                        format!("unknown element type `{p}`; shardc supports {known}{fix}"),
                    );
                };
                return Ok(TensorType::new(dtype, shape));
            }
            if p == "?" {
                return self.err_at(
                    at,
                    "dynamic dimensions (`?`) are not supported: shardc needs static shapes; export with concrete shapes (`jax.jit(f, ...).lower(*arrays).as_text()`, or `jax.export` without symbolic dimensions)",
                );
            }
            if p == "*" {
                return self.err_at(
                    at,
                    "unranked tensors (`tensor<*x...>`) are not supported: give the shape",
                );
            }
            let Some(d) = p.parse::<usize>().ok().filter(|&d| d <= MAX_DIM) else {
                return self.err_at(
                    at,
                    format!(
                        "expected a dimension size (at most 2^40) in the tensor type, found `{p}`"
                    ),
                );
            };
            elements = elements.saturating_mul(d);
            if elements > MAX_ELEMENTS {
                return self.err_at(body_offset, "tensor has more than 2^48 elements");
            }
            shape.push(d);
        }
        // `split` yields at least one part, so the loop returns.
        self.err_at(body_offset, "empty tensor type")
    }

    /// `(a, b)`
    pub(super) fn type_list_parens(&mut self, context: &str) -> PResult<Vec<TensorType>> {
        self.expect(Tok::LParen, context)?;
        let mut types = Vec::new();
        if self.eat(Tok::RParen)? {
            return Ok(types);
        }
        loop {
            types.push(self.tensor_type("in the type list")?);
            if self.eat(Tok::Comma)? {
                continue;
            }
            self.expect(Tok::RParen, "after the types of a type list")?;
            return Ok(types);
        }
    }

    /// `(a, b) -> r` or `(a) -> (r, s)`
    pub(super) fn function_type(
        &mut self,
        context: &str,
    ) -> PResult<(Vec<TensorType>, Vec<TensorType>)> {
        let inputs = self.type_list_parens(context)?;
        self.expect(Tok::Arrow, "between the operand and result types")?;
        let results = if self.is(&Tok::LParen) {
            self.type_list_parens("to open the result types")?
        } else {
            vec![self.tensor_type("after '->'")?]
        };
        Ok((inputs, results))
    }

    // ----- integers -----

    /// A non-negative integer that fits `usize`.
    pub(super) fn usize_lit(&mut self, what: &str) -> PResult<usize> {
        let Tok::Int(text) = self.tok.tok else {
            return self.err(format!(
                "expected {what} (a non-negative integer), found {}",
                self.tok.tok
            ));
        };
        let Some(v) = parse_int(false, text).and_then(|v| usize::try_from(v).ok()) else {
            return self.err(format!("{what} {text} is too large"));
        };
        self.bump()?;
        Ok(v)
    }

    /// An integer with an optional `-` that fits `i64`.
    pub(super) fn i64_lit(&mut self, what: &str) -> PResult<i64> {
        let at = self.tok.start;
        let negative = self.eat(Tok::Minus)?;
        let Tok::Int(text) = self.tok.tok else {
            return self.err(format!(
                "expected {what} (an integer), found {}",
                self.tok.tok
            ));
        };
        let Some(v) = parse_int(negative, text).and_then(|v| i64::try_from(v).ok()) else {
            return self.err_at(at, format!("{what} {text} does not fit in 64 bits"));
        };
        self.bump()?;
        Ok(v)
    }

    /// `[1, -2, 3]`
    pub(super) fn i64_list(&mut self, what: &str) -> PResult<Vec<i64>> {
        self.expect(Tok::LSquare, &format!("to open the list of {what}"))?;
        let mut out = Vec::new();
        if self.eat(Tok::RSquare)? {
            return Ok(out);
        }
        loop {
            out.push(self.i64_lit(what)?);
            if self.eat(Tok::Comma)? {
                continue;
            }
            if self.eat(Tok::RSquare)? {
                return Ok(out);
            }
            return self.err(format!(
                "expected ',' or ']' in the list of {what}, found {}",
                self.tok.tok
            ));
        }
    }

    /// `[0, 1]` of dimension numbers (non-negative).
    pub(super) fn usize_list(&mut self, what: &str) -> PResult<Vec<usize>> {
        let at = self.tok.start;
        let v = self.i64_list(what)?;
        to_usizes(v).ok_or_else(|| self.error_at(at, format!("{what} must be non-negative")))
    }

    /// `array<i64: 1, 2>` or `array<i64>`; also the older `dense<[1, 2]> : tensor<2xi64>`.
    pub(super) fn i64_array(&mut self) -> PResult<Vec<i64>> {
        if self.is_ident("dense") {
            let at = self.tok.start;
            let lit = self.dense_literal()?;
            if !lit.ty.dtype.is_int() || lit.ty.rank() > 1 || lit.ty.num_elements() > 1 << 16 {
                return self.err_at(
                    at,
                    format!("expected a list of integers, found a {} literal", lit.ty),
                );
            }
            return Ok(lit
                .to_dense()
                .elements
                .to_f64_vec()
                .iter()
                .map(|&x| x as i64)
                .collect());
        }
        self.expect_ident("array", "(an array attribute `array<i64: ...>`)")?;
        self.expect(Tok::Less, "after 'array'")?;
        self.expect_ident("i64", "as the array's element type")?;
        let mut out = Vec::new();
        if self.eat(Tok::Colon)? {
            loop {
                out.push(self.i64_lit("array element")?);
                if !self.eat(Tok::Comma)? {
                    break;
                }
            }
        }
        self.expect(Tok::Greater, "to close the array")?;
        Ok(out)
    }

    /// `array<i64: ...>` of non-negative values.
    pub(super) fn usize_array(&mut self, what: &str) -> PResult<Vec<usize>> {
        let at = self.tok.start;
        let v = self.i64_array()?;
        to_usizes(v).ok_or_else(|| self.error_at(at, format!("{what} must be non-negative")))
    }

    /// `[[1, 1], [0, 2]]`: (low, high) pairs, one per dimension.
    pub(super) fn pad_pairs(&mut self) -> PResult<Vec<(i64, i64)>> {
        self.expect(Tok::LSquare, "to open the padding `[[low, high], ...]`")?;
        let mut out = Vec::new();
        if self.eat(Tok::RSquare)? {
            return Ok(out);
        }
        loop {
            self.expect(Tok::LSquare, "to open a padding pair `[low, high]`")?;
            let lo = self.i64_lit("the low padding")?;
            self.expect(Tok::Comma, "between low and high padding")?;
            let hi = self.i64_lit("the high padding")?;
            self.expect(Tok::RSquare, "to close a padding pair")?;
            out.push((lo, hi));
            if !self.eat(Tok::Comma)? {
                break;
            }
        }
        self.expect(Tok::RSquare, "to close the padding")?;
        Ok(out)
    }

    /// `[false, true]` (or `[0, 1]`).
    pub(super) fn bool_list(&mut self, what: &str) -> PResult<Vec<bool>> {
        self.expect(Tok::LSquare, &format!("to open {what}"))?;
        let mut out = Vec::new();
        if self.eat(Tok::RSquare)? {
            return Ok(out);
        }
        loop {
            out.push(self.bool_or_bit(what)?);
            if !self.eat(Tok::Comma)? {
                break;
            }
        }
        self.expect(Tok::RSquare, &format!("to close {what}"))?;
        Ok(out)
    }

    fn bool_or_bit(&mut self, what: &str) -> PResult<bool> {
        let v = match self.tok.tok {
            Tok::Ident("true") | Tok::Int("1") => true,
            Tok::Ident("false") | Tok::Int("0") => false,
            _ => {
                return self.err(format!(
                    "expected true or false in {what}, found {}",
                    self.tok.tok
                ));
            }
        };
        self.bump()?;
        Ok(v)
    }

    /// `array<i1: false, true>`, `array<i1>`, or a `dense<...> : tensor<Nxi1>`.
    pub(super) fn bool_array(&mut self) -> PResult<Vec<bool>> {
        if self.is_ident("dense") {
            let lit = self.dense_literal()?;
            return Ok((0..lit.ty.num_elements())
                .map(|i| lit.get(i).as_bool())
                .collect());
        }
        self.expect_ident("array", "(an array attribute `array<i1: ...>`)")?;
        self.expect(Tok::Less, "after 'array'")?;
        self.expect_ident("i1", "as the array's element type")?;
        let mut out = Vec::new();
        if self.eat(Tok::Colon)? {
            loop {
                out.push(self.bool_or_bit("the array")?);
                if !self.eat(Tok::Comma)? {
                    break;
                }
            }
        }
        self.expect(Tok::Greater, "to close the array")?;
        Ok(out)
    }

    /// `5 : i64` (the type is optional).
    pub(super) fn int_attr(&mut self, what: &str) -> PResult<i64> {
        let v = self.i64_lit(what)?;
        if self.eat(Tok::Colon)? {
            let ty = self.ident("(the integer's type)")?;
            if !matches!(ty, "i64" | "i32" | "si64" | "ui64") {
                return self.err(format!("expected an integer type after ':', found '{ty}'"));
            }
        }
        Ok(v)
    }

    pub(super) fn bool_attr(&mut self) -> PResult<bool> {
        match self.tok.tok {
            Tok::Ident("true") => {
                self.bump()?;
                Ok(true)
            }
            Tok::Ident("false") => {
                self.bump()?;
                Ok(false)
            }
            _ => self.err(format!("expected true or false, found {}", self.tok.tok)),
        }
    }

    pub(super) fn string_attr(&mut self, what: &str) -> PResult<String> {
        let Tok::Str(s) = &self.tok.tok else {
            return self.err(format!(
                "expected {what} (a string), found {}",
                self.tok.tok
            ));
        };
        let s = s.clone();
        self.bump()?;
        Ok(s)
    }

    pub(super) fn symbol_name(&mut self, what: &str) -> PResult<String> {
        let Tok::Symbol(s) = &self.tok.tok else {
            return self.err(format!(
                "expected {what} (a symbol such as @main), found {}",
                self.tok.tok
            ));
        };
        let s = s.clone();
        self.bump()?;
        Ok(s)
    }

    // ----- dense literals -----

    /// `dense<...> : tensor<...>`
    pub(super) fn dense_literal(&mut self) -> PResult<Literal> {
        let at = self.tok.start;
        self.expect_ident("dense", "(a constant `dense<...> : tensor<...>`)")?;
        self.expect(Tok::Less, "after 'dense'")?;
        enum Content<'a> {
            Empty,
            Hex(String, usize),
            Tree(Tree<'a>),
        }
        let content = match &self.tok.tok {
            Tok::Greater => Content::Empty,
            Tok::Str(s) => {
                let c = Content::Hex(s.clone(), self.tok.start);
                self.bump()?;
                c
            }
            _ => Content::Tree(self.dense_tree(0)?),
        };
        self.expect(Tok::Greater, "to close 'dense<'")?;
        self.expect(Tok::Colon, "before the constant's type")?;
        let ty = self.tensor_type("after the constant")?;
        let elements = match content {
            Content::Empty => {
                if ty.num_elements() != 0 {
                    return self.err_at(
                        at,
                        format!(
                            "dense<> has no elements but {ty} holds {}; list them",
                            ty.num_elements()
                        ),
                    );
                }
                Elements::from_bits(ty.dtype, &[])
            }
            Content::Hex(s, offset) => self.hex_elements(&s, offset, &ty)?,
            Content::Tree(tree) => self.tree_elements(tree, &ty, at)?,
        };
        Literal::new(ty, elements).map_err(|e| self.error_at(at, e.to_string()))
    }

    fn dense_tree(&mut self, depth: usize) -> PResult<Tree<'a>> {
        let at = self.tok.start;
        if depth > MAX_LIST_DEPTH {
            return self.err(format!(
                "dense literal nests lists deeper than {MAX_LIST_DEPTH}"
            ));
        }
        if self.eat(Tok::LSquare)? {
            let mut items = Vec::new();
            if self.eat(Tok::RSquare)? {
                return Ok(Tree::List(items, at));
            }
            loop {
                items.push(self.dense_tree(depth + 1)?);
                if self.eat(Tok::Comma)? {
                    continue;
                }
                if self.eat(Tok::RSquare)? {
                    return Ok(Tree::List(items, at));
                }
                return self.err(format!(
                    "expected ',' or ']' in the dense literal, found {}",
                    self.tok.tok
                ));
            }
        }
        if self.eat(Tok::LParen)? {
            // A complex element `(re, im)`: a list of two, as complex values are held.
            let re = self.dense_tree(depth + 1)?;
            self.expect(
                Tok::Comma,
                "between the parts of a complex element `(re, im)`",
            )?;
            let im = self.dense_tree(depth + 1)?;
            self.expect(Tok::RParen, "to close a complex element `(re, im)`")?;
            return Ok(Tree::List(vec![re, im], at));
        }
        let negative = self.eat(Tok::Minus)?;
        let elem = match self.tok.tok {
            Tok::Int(text) => Elem::Int { negative, text },
            Tok::Float(text) => Elem::Float(if negative {
                format!("-{text}")
            } else {
                text.to_string()
            }),
            Tok::Ident("true") if !negative => Elem::Bool(true),
            Tok::Ident("false") if !negative => Elem::Bool(false),
            _ => {
                return self.err(format!(
                    "expected a number, true, false or '[' in the dense literal, found {}",
                    self.tok.tok
                ));
            }
        };
        self.bump()?;
        Ok(Tree::Leaf(elem, at))
    }

    /// The shape of nested lists, or an error if they are ragged.
    fn tree_shape(&self, tree: &Tree<'_>) -> PResult<Vec<usize>> {
        match tree {
            Tree::Leaf(..) => Ok(Vec::new()),
            Tree::List(items, _) => {
                let Some(first) = items.first() else {
                    return Ok(vec![0]);
                };
                let inner = self.tree_shape(first)?;
                for item in &items[1..] {
                    if self.tree_shape(item)? != inner {
                        let at = match item {
                            Tree::Leaf(_, a) | Tree::List(_, a) => *a,
                        };
                        return self.err_at(at, "ragged dense literal: every list at one depth must have the same shape");
                    }
                }
                let mut shape = vec![items.len()];
                shape.extend(inner);
                Ok(shape)
            }
        }
    }

    fn tree_elements(&self, tree: Tree<'_>, ty: &TensorType, at: usize) -> PResult<Elements> {
        let shape = self.tree_shape(&tree)?;
        // One complex element `(re, im)` for a complex tensor of several: a splat.
        if self.complex.last() == Some(&true) && shape == [2] && ty.shape != [2] {
            let mut leaves = Vec::new();
            flatten(tree, &mut leaves);
            let pair = leaves
                .into_iter()
                .map(|(elem, at)| self.element_bits(&elem, ty.dtype, at))
                .collect::<PResult<Vec<u64>>>()?;
            let bits: Vec<u64> = pair
                .iter()
                .copied()
                .cycle()
                .take(ty.num_elements())
                .collect();
            return Ok(Elements::from_bits(ty.dtype, &bits));
        }
        if !shape.is_empty() && shape != ty.shape {
            return self.err_at(
                at,
                format!(
                    "dense literal has shape {shape:?} but the type is {ty}; nest one list per dimension ({:?}), or give one element for a splat",
                    ty.shape
                ),
            );
        }
        let mut leaves = Vec::new();
        flatten(tree, &mut leaves);
        let bits = leaves
            .into_iter()
            .map(|(elem, at)| self.element_bits(&elem, ty.dtype, at))
            .collect::<PResult<Vec<u64>>>()?;
        Ok(Elements::from_bits(ty.dtype, &bits))
    }

    /// One element's bit pattern in a dtype.
    fn element_bits(&self, elem: &Elem<'_>, dtype: DType, at: usize) -> PResult<u64> {
        let width = dtype.bit_width();
        let fits_bits = |v: i128| v >= 0 && (width >= 64 || v < 1i128 << width);
        match (elem, dtype) {
            (Elem::Bool(b), DType::I1) => Ok(u64::from(*b)),
            (
                Elem::Int {
                    negative: false,
                    text,
                },
                DType::I1,
            ) if matches!(*text, "0" | "1") => Ok(u64::from(*text == "1")),
            (Elem::Int { negative, text }, d) if text.starts_with("0x") => {
                match parse_int(*negative, text) {
                    Some(v) if !negative && fits_bits(v) && d != DType::I1 => Ok(v as u64),
                    _ => self.err_at(
                        at,
                        format!(
                            "hexadecimal element {text} does not fit the {width} bits of {dtype}"
                        ),
                    ),
                }
            }
            (Elem::Int { negative, text }, d) if d.is_int() => {
                let v = parse_int(*negative, text);
                let (lo, hi) = if d.is_unsigned() {
                    (0, (1i128 << width) - 1)
                } else {
                    (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1)
                };
                match v {
                    Some(v) if (lo..=hi).contains(&v) => Ok(v as u64 & mask(width)),
                    _ => self.err_at(
                        at,
                        format!(
                            "{}{text} does not fit in {dtype}, whose values run from {lo} to {hi}",
                            if *negative { "-" } else { "" }
                        ),
                    ),
                }
            }
            (Elem::Int { negative, text }, d) if d.is_float() => {
                let t = format!("{}{text}", if *negative { "-" } else { "" });
                parse_float_bits(d, &t)
                    .map_or_else(|| self.err_at(at, format!("bad number {t}")), Ok)
            }
            (Elem::Float(t), d) if d.is_float() => {
                parse_float_bits(d, t).map_or_else(|| self.err_at(at, format!("bad float {t}")), Ok)
            }
            (Elem::Float(t), _) => self.err_at(
                at,
                format!("expected an integer for {dtype}, found float {t}"),
            ),
            (Elem::Bool(_), _) => self.err_at(
                at,
                format!("true/false are i1 values, but the element type is {dtype}"),
            ),
            (Elem::Int { text, .. }, _) => {
                self.err_at(at, format!("expected true or false for i1, found {text}"))
            }
        }
    }

    /// `"0x0000803F..."`: little-endian element bytes, all elements or one (a splat).
    fn hex_elements(&self, s: &str, at: usize, ty: &TensorType) -> PResult<Elements> {
        let Some(hex) = s
            .strip_prefix("0x")
            .filter(|h| h.len() % 2 == 0 && h.bytes().all(|c| c.is_ascii_hexdigit()))
        else {
            return self.err_at(
                at,
                "a dense string must be \"0x\" followed by an even number of hex digits",
            );
        };
        let bytes: Vec<u8> = (0..hex.len() / 2)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap_or(0))
            .collect();
        if ty.dtype == DType::I1 {
            return self.hex_booleans(&bytes, at, ty);
        }
        let size = ty.dtype.size_bytes();
        let n = bytes.len() / size;
        if bytes.len() != ty.num_elements() * size && bytes.len() != size {
            return self.err_at(
                at,
                format!(
                    "the hex string holds {} bytes ({n} whole {} element(s){}), but {ty} holds {}; give {} bytes (or {size} for a splat)",
                    bytes.len(),
                    ty.dtype,
                    if bytes.len().is_multiple_of(size) {
                        String::new()
                    } else {
                        format!(" and {} byte(s) over", bytes.len() % size)
                    },
                    ty.num_elements(),
                    ty.num_elements() * size
                ),
            );
        }
        let bits: Vec<u64> = bytes
            .chunks(size)
            .map(|c| {
                c.iter()
                    .rev()
                    .fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
            })
            .collect();
        Ok(Elements::from_bits(ty.dtype, &bits))
    }

    /// i1 elements in hex, as MLIR reads them: one byte, 0x00 or 0xFF, is a splat; a byte
    /// per element (true unless 0: how JAX prints a boolean mask such as
    /// `jax.nn.dot_product_attention`'s causal one); or the bits packed eight to a byte,
    /// first element in the lowest bit (how MLIR prints them).
    fn hex_booleans(&self, bytes: &[u8], at: usize, ty: &TensorType) -> PResult<Elements> {
        let n = ty.num_elements();
        let packed = n.div_ceil(8);
        let values: Vec<bool> = match bytes {
            [0x00] => vec![false; n],
            [0xFF] => vec![true; n],
            _ if bytes.len() == n => bytes.iter().map(|&b| b != 0).collect(),
            _ if bytes.len() == packed => {
                (0..n).map(|i| bytes[i / 8] >> (i % 8) & 1 == 1).collect()
            }
            _ => {
                return self.err_at(
                    at,
                    format!(
                        "the hex string holds {} bytes, but {ty} takes {n} (a byte per element), {packed} (eight to a byte) or 1 (0x00 or 0xFF, a splat)",
                        bytes.len()
                    ),
                );
            }
        };
        Ok(Elements::I1(values))
    }

    // ----- StableHLO attributes -----

    /// `#stablehlo<comparison_direction GE>`: returns the value's name (`GE`).
    pub(super) fn enum_attr(&mut self, dialect: &str, kind: &str) -> PResult<&'a str> {
        match self.tok.tok {
            Tok::Hash(d) if d == dialect => self.bump()?,
            _ => {
                return self.err(format!(
                    "expected `#{dialect}<{kind} ...>`, found {}",
                    self.tok.tok
                ));
            }
        };
        self.expect(Tok::Less, &format!("after #{dialect}"))?;
        self.expect_ident(kind, &format!("in #{dialect}<{kind} ...>"))?;
        let value = self.ident(&format!("(the {kind})"))?;
        self.expect(Tok::Greater, &format!("to close #{dialect}<{kind} ...>"))?;
        Ok(value)
    }

    /// `[#stablehlo<precision DEFAULT>, ...]`
    pub(super) fn precision_config(&mut self) -> PResult<Vec<Precision>> {
        self.expect(Tok::LSquare, "to open the precision config")?;
        let mut out = Vec::new();
        if self.eat(Tok::RSquare)? {
            return Ok(out);
        }
        loop {
            let at = self.tok.start;
            let name = self.enum_attr("stablehlo", "precision")?;
            out.push(
                Precision::from_name(name)
                    .ok_or_else(|| self.error_at(at, unknown_precision(name)))?,
            );
            if !self.eat(Tok::Comma)? {
                break;
            }
        }
        self.expect(Tok::RSquare, "to close the precision config")?;
        Ok(out)
    }

    /// The fields `name = value` of a StableHLO struct attribute `#stablehlo.NAME<...>`, any
    /// order, each at most once; `field` reads the value of the field it is given.
    fn struct_attr(
        &mut self,
        name: &str,
        fields: &[&str],
        field: impl FnMut(&mut Self, usize) -> PResult<()>,
    ) -> PResult<()> {
        let tag = format!("stablehlo.{name}");
        match self.tok.tok {
            Tok::Hash(d) if d == tag => self.bump()?,
            _ => return self.err(format!("expected `#{tag}<...>`, found {}", self.tok.tok)),
        };
        self.struct_fields(&format!("#{tag}"), fields, field)
    }

    /// `<key = value, ...>`, each key one of `fields` at most once, its value read by
    /// `field` (given the key's index); `what` names the whole in messages.
    fn struct_fields(
        &mut self,
        what: &str,
        fields: &[&str],
        mut field: impl FnMut(&mut Self, usize) -> PResult<()>,
    ) -> PResult<()> {
        let tag = what;
        self.expect(Tok::Less, &format!("to open {tag}"))?;
        let mut seen = vec![false; fields.len()];
        if self.eat(Tok::Greater)? {
            return Ok(());
        }
        loop {
            let key = self.ident(&format!("(a field of {tag}: {})", fields.join(", ")))?;
            let Some(i) = fields.iter().position(|f| *f == key) else {
                return self.err_at(
                    self.prev_end - key.len(),
                    format!(
                        "unknown field `{key}` of {tag}; expected one of {}",
                        fields.join(", ")
                    ),
                );
            };
            if std::mem::replace(&mut seen[i], true) {
                return self.err_at(
                    self.prev_end - key.len(),
                    format!("field `{key}` of {tag} is given twice"),
                );
            }
            self.expect(Tok::Equal, &format!("after `{key}`"))?;
            field(self, i)?;
            if self.eat(Tok::Comma)? {
                continue;
            }
            self.expect(Tok::Greater, &format!("to close {tag}"))?;
            return Ok(());
        }
    }

    /// `#stablehlo.dot_algorithm<lhs_precision_type = bf16, ...>` (the generic form).
    pub(super) fn dot_algorithm_attr(&mut self) -> PResult<DotAlgorithm> {
        match self.tok.tok {
            Tok::Hash("stablehlo.dot_algorithm") => self.bump()?,
            _ => {
                return self.err(format!(
                    "expected `#stablehlo.dot_algorithm<...>`, found {}",
                    self.tok.tok
                ));
            }
        };
        self.dot_algorithm_fields()
    }

    /// A dot algorithm in the pretty form: its fields, with or without the
    /// `#stablehlo.dot_algorithm` before them.
    pub(super) fn dot_algorithm(&mut self) -> PResult<DotAlgorithm> {
        if matches!(self.tok.tok, Tok::Hash("stablehlo.dot_algorithm")) {
            return self.dot_algorithm_attr();
        }
        self.dot_algorithm_fields()
    }

    /// A dot algorithm's `<lhs_precision_type = bf16, rhs_precision_type = bf16,
    /// accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1,
    /// num_primitive_operations = 1, allow_imprecise_accumulation = false>`; the three
    /// types are required, each a float type shardc names (`tf32` included), and the
    /// component counts 1 (complex components are not read).
    pub(super) fn dot_algorithm_fields(&mut self) -> PResult<DotAlgorithm> {
        let mut a = DotAlgorithm::default();
        let mut types: [Option<String>; 3] = [None, None, None];
        let start = self.tok.start;
        self.struct_fields("the dot algorithm", &DotAlgorithm::FIELDS, |p, i| {
            match i {
                0..=2 => {
                    let at = p.tok.start;
                    let t = p.ident("(a float type, as bf16)")?;
                    if !DotAlgorithm::TYPES.contains(&t) {
                        return p.err_at(
                            at,
                            format!(
                                "a dot algorithm's {} is one of {}, not `{t}`",
                                DotAlgorithm::FIELDS[i],
                                DotAlgorithm::TYPES.join(", ")
                            ),
                        );
                    }
                    types[i] = Some(t.to_string());
                }
                3 | 4 => {
                    let at = p.tok.start;
                    let n = p.int_attr(DotAlgorithm::FIELDS[i])?;
                    if n != 1 {
                        return p.err_at(
                            at,
                            format!(
                                "{} = {n}: dot algorithms of complex components are not read; shardc reads 1",
                                DotAlgorithm::FIELDS[i]
                            ),
                        );
                    }
                }
                5 => a.primitive_operations = p.int_attr(DotAlgorithm::FIELDS[i])?,
                _ => a.allow_imprecise_accumulation = p.bool_attr()?,
            }
            Ok(())
        })?;
        let [Some(lhs), Some(rhs), Some(acc)] = types else {
            return self.err_at(
                start,
                "a dot algorithm names its lhs_precision_type, rhs_precision_type and accumulation_type",
            );
        };
        (a.lhs_precision, a.rhs_precision, a.accumulation) = (lhs, rhs, acc);
        Ok(a)
    }

    /// `#stablehlo.dot<lhs_batching_dimensions = [0], ...>` (precision is not part of it).
    pub(super) fn dot_attr(&mut self) -> PResult<DotDims> {
        let mut d = DotDims::default();
        let fields = [
            "lhs_batching_dimensions",
            "rhs_batching_dimensions",
            "lhs_contracting_dimensions",
            "rhs_contracting_dimensions",
        ];
        self.struct_attr("dot", &fields, |p, i| {
            let v = p.usize_list(fields[i])?;
            match i {
                0 => d.lhs_batch = v,
                1 => d.rhs_batch = v,
                2 => d.lhs_contracting = v,
                _ => d.rhs_contracting = v,
            }
            Ok(())
        })?;
        Ok(d)
    }

    /// `#stablehlo.gather<offset_dims = [1], ..., index_vector_dim = 1>` (slice sizes and
    /// sortedness are separate properties).
    pub(super) fn gather_attr(&mut self) -> PResult<GatherDims> {
        let mut g = GatherDims::default();
        let fields = [
            "offset_dims",
            "collapsed_slice_dims",
            "operand_batching_dims",
            "start_indices_batching_dims",
            "start_index_map",
            "index_vector_dim",
        ];
        self.struct_attr("gather", &fields, |p, i| {
            if i == 5 {
                g.index_vector_dim = p.usize_lit("index_vector_dim")?;
                return Ok(());
            }
            let v = p.usize_list(fields[i])?;
            match i {
                0 => g.offset_dims = v,
                1 => g.collapsed_slice_dims = v,
                2 => g.operand_batching_dims = v,
                3 => g.start_indices_batching_dims = v,
                _ => g.start_index_map = v,
            }
            Ok(())
        })?;
        Ok(g)
    }

    /// `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`: convolution dimension numbers, each list
    /// naming what each dimension of the input, the kernel and the output is (`b` batch,
    /// `f` feature, `i`/`o` the kernel's input/output feature, `N` spatial dimension N).
    /// Fills the dimension fields of `d`.
    pub(super) fn conv_dimension_numbers(&mut self, d: &mut ConvDims) -> PResult<()> {
        let start = self.tok.start;
        let input = self.conv_layout("the input's dimensions", ['b', 'f'])?;
        self.expect_ident("x", "between the input's and the kernel's dimension lists")?;
        let kernel = self.conv_layout("the kernel's dimensions", ['i', 'o'])?;
        self.expect(Tok::Arrow, "before the output's dimension list")?;
        let output = self.conv_layout("the output's dimensions", ['b', 'f'])?;
        let n = input.2.len();
        if kernel.2.len() != n || output.2.len() != n {
            return self.err_at(
                start,
                format!(
                    "the input, kernel and output list {n}, {} and {} spatial dimensions; they must agree",
                    kernel.2.len(),
                    output.2.len()
                ),
            );
        }
        (d.input_batch, d.input_feature, d.input_spatial) = input;
        (
            d.kernel_input_feature,
            d.kernel_output_feature,
            d.kernel_spatial,
        ) = kernel;
        (d.output_batch, d.output_feature, d.output_spatial) = output;
        Ok(())
    }

    /// `[b, 0, 1, f]` with the two letters given: the positions of the letters and of
    /// spatial dimensions 0, 1, ... in order.
    fn conv_layout(
        &mut self,
        what: &str,
        letters: [char; 2],
    ) -> PResult<(usize, usize, Vec<usize>)> {
        let at = self.tok.start;
        self.expect(Tok::LSquare, &format!("to open {what}"))?;
        let (mut first, mut second) = (None, None);
        let mut spatial: Vec<Option<usize>> = Vec::new();
        let mut pos = 0;
        loop {
            let here = self.tok.start;
            match self.tok.tok {
                Tok::Int(t) => {
                    let k: usize = t.parse().map_err(|_| {
                        self.error_at(here, format!("spatial dimension {t} is too large"))
                    })?;
                    if k > 64 {
                        return self.err_at(here, format!("spatial dimension {k} is too large"));
                    }
                    if spatial.len() <= k {
                        spatial.resize(k + 1, None);
                    }
                    if spatial[k].replace(pos).is_some() {
                        return self.err_at(
                            here,
                            format!("spatial dimension {k} is listed twice in {what}"),
                        );
                    }
                    self.bump()?;
                }
                Tok::Ident(l)
                    if l.len() == 1 && letters.contains(&l.chars().next().unwrap_or(' ')) =>
                {
                    let slot = if l.starts_with(letters[0]) {
                        &mut first
                    } else {
                        &mut second
                    };
                    if slot.replace(pos).is_some() {
                        return self.err_at(here, format!("`{l}` is listed twice in {what}"));
                    }
                    self.bump()?;
                }
                _ => {
                    return self.err(format!(
                        "expected `{}`, `{}` or a spatial dimension number in {what}, found {}",
                        letters[0], letters[1], self.tok.tok
                    ));
                }
            }
            pos += 1;
            if !self.eat(Tok::Comma)? {
                break;
            }
        }
        self.expect(Tok::RSquare, &format!("to close {what}"))?;
        let (Some(first), Some(second)) = (first, second) else {
            return self.err_at(
                at,
                format!("{what} must name `{}` and `{}`", letters[0], letters[1]),
            );
        };
        let spatial = spatial
            .into_iter()
            .collect::<Option<Vec<usize>>>()
            .ok_or_else(|| self.error_at(at, format!("{what} skips a spatial dimension number")))?;
        Ok((first, second, spatial))
    }

    /// `#stablehlo.scatter<update_window_dims = [...], ...>` after `#stablehlo.scatter`.
    pub(super) fn scatter_attr(&mut self) -> PResult<ScatterDims> {
        let mut d = ScatterDims::default();
        let fields = [
            "update_window_dims",
            "inserted_window_dims",
            "input_batching_dims",
            "scatter_indices_batching_dims",
            "scatter_dims_to_operand_dims",
            "index_vector_dim",
        ];
        self.struct_attr("scatter", &fields, |p, i| {
            if i == 5 {
                d.index_vector_dim = p.usize_lit("index_vector_dim")?;
                return Ok(());
            }
            let v = p.usize_list(fields[i])?;
            match i {
                0 => d.update_window_dims = v,
                1 => d.inserted_window_dims = v,
                2 => d.input_batching_dims = v,
                3 => d.scatter_indices_batching_dims = v,
                _ => d.scatter_dims_to_operand_dims = v,
            }
            Ok(())
        })?;
        Ok(d)
    }

    // ----- Shardy attributes -----

    /// The body of a mesh: `<["data"=2, "model"=4], device_ids=[...]>`.
    pub(super) fn mesh_body(&mut self, name: &str) -> PResult<Mesh> {
        self.expect(Tok::Less, "to open the mesh `<[\"axis\"=size, ...]>`")?;
        self.expect(Tok::LSquare, "to open the list of mesh axes")?;
        let mut axes = Vec::new();
        let mut devices: usize = 1;
        if !self.eat(Tok::RSquare)? {
            loop {
                let at = self.tok.start;
                let axis = self.axis_name()?;
                self.expect(
                    Tok::Equal,
                    &format!("after the axis name \"{axis}\" (write \"{axis}\"=SIZE)"),
                )?;
                let size = self.usize_lit("the axis size")?;
                devices = devices.saturating_mul(size);
                if devices > MAX_DEVICES {
                    return self.err_at(at, format!("mesh @{name} has more than 2^32 devices"));
                }
                axes.push(MeshAxis { name: axis, size });
                if self.eat(Tok::Comma)? {
                    continue;
                }
                if self.eat(Tok::RSquare)? {
                    break;
                }
                return self.err(format!(
                    "expected ',' or ']' after a mesh axis, found {}",
                    self.tok.tok
                ));
            }
        }
        let mut device_ids = None;
        if self.eat(Tok::Comma)? {
            self.expect_ident("device_ids", "after the mesh axes")?;
            self.expect(Tok::Equal, "after 'device_ids'")?;
            let at = self.tok.start;
            let ids = self.i64_list("device ids")?;
            let ids = to_usizes(ids)
                .ok_or_else(|| self.error_at(at, "device ids must be non-negative"))?;
            device_ids = Some(ids);
        }
        self.expect(Tok::Greater, "to close the mesh")?;
        Ok(Mesh {
            name: name.to_string(),
            axes,
            device_ids,
        })
    }

    /// A quoted axis name, checked to print back the same.
    fn axis_name(&mut self) -> PResult<String> {
        let Tok::Str(s) = &self.tok.tok else {
            return self.err(format!(
                "expected an axis name in quotes (\"data\"), found {}",
                self.tok.tok
            ));
        };
        if s.chars().any(|c| c == '"' || c == '\\' || c.is_control()) {
            return self
                .err("axis names may not contain quotes, backslashes or control characters");
        }
        let s = s.clone();
        self.bump()?;
        Ok(s)
    }

    /// `"x"` or `"x":(2)4`
    fn axis_ref(&mut self) -> PResult<AxisRef> {
        let name = self.axis_name()?;
        let mut sub = None;
        if self.eat(Tok::Colon)? {
            self.expect(
                Tok::LParen,
                &format!("to open the sub-axis of \"{name}\" (write \"{name}\":(pre)size)"),
            )?;
            let pre_size = self.sub_axis_number("the sub-axis pre-size")?;
            self.expect(Tok::RParen, "after the sub-axis pre-size")?;
            let size = self.sub_axis_number("the sub-axis size")?;
            sub = Some(SubAxis { pre_size, size });
        }
        Ok(AxisRef { name, sub })
    }

    fn sub_axis_number(&mut self, what: &str) -> PResult<usize> {
        let at = self.tok.start;
        let v = self.usize_lit(what)?;
        if v >= MAX_DEVICES {
            return self.err_at(at, format!("{what} {v} is larger than any mesh axis"));
        }
        Ok(v)
    }

    /// `{"a", "b"}`
    fn axis_set(&mut self, what: &str) -> PResult<Vec<AxisRef>> {
        self.expect(Tok::LBrace, &format!("to open the {what} axes"))?;
        let mut out = Vec::new();
        if self.eat(Tok::RBrace)? {
            return Ok(out);
        }
        loop {
            out.push(self.axis_ref()?);
            if self.eat(Tok::Comma)? {
                continue;
            }
            if self.eat(Tok::RBrace)? {
                return Ok(out);
            }
            return self.err(format!(
                "expected ',' or '}}' after an axis of the {what} axes, found {}",
                self.tok.tok
            ));
        }
    }

    /// `{"data", "model"}`: axis names (a manual computation's manual axes).
    pub(super) fn axis_names(&mut self) -> PResult<Vec<String>> {
        Ok(self
            .axis_set("manual")?
            .into_iter()
            .map(|a| a.name)
            .collect())
    }

    /// `#sdy<manual_axes{"data"}>` after the `#sdy`.
    pub(super) fn manual_axes_attr(&mut self) -> PResult<Vec<String>> {
        match self.tok.tok {
            Tok::Hash("sdy") => self.bump()?,
            _ => {
                return self.err(format!(
                    "expected `#sdy<manual_axes{{...}}>`, found {}",
                    self.tok.tok
                ));
            }
        };
        self.expect(Tok::Less, "after #sdy")?;
        self.expect_ident("manual_axes", "(#sdy<manual_axes{\"data\"}>)")?;
        let axes = self.axis_names()?;
        self.expect(Tok::Greater, "to close #sdy<manual_axes{...}>")?;
        Ok(axes)
    }

    /// `{"a", "b", ?}p1`
    fn dim_sharding(&mut self) -> PResult<DimSharding> {
        self.expect(
            Tok::LBrace,
            "to open a dimension sharding (`{}`, `{\"axis\"}` or `{?}`)",
        )?;
        let mut d = DimSharding::default();
        if !self.eat(Tok::RBrace)? {
            loop {
                if self.eat(Tok::Question)? {
                    d.open = true;
                    self.expect(
                        Tok::RBrace,
                        "after '?' (the open marker comes last in a dimension sharding)",
                    )?;
                    break;
                }
                d.axes.push(self.axis_ref()?);
                if self.eat(Tok::Comma)? {
                    continue;
                }
                if self.eat(Tok::RBrace)? {
                    break;
                }
                return self.err(format!(
                    "expected ',' or '}}' after an axis of a dimension sharding, found {}",
                    self.tok.tok
                ));
            }
        }
        if let Tok::Ident(p) = self.tok.tok
            && let Some(digits) = p
                .strip_prefix('p')
                .filter(|d| !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()))
        {
            let Ok(priority) = digits.parse::<u32>() else {
                return self.err(format!("priority {p} is too large"));
            };
            d.priority = Some(priority);
            self.bump()?;
        }
        Ok(d)
    }

    /// The body of a sharding: `<@mesh, [{"data"}, {}], replicated={"x"}, unreduced={"y"}>`.
    pub(super) fn sharding_body(&mut self) -> PResult<Sharding> {
        self.expect(Tok::Less, "to open the sharding `<@mesh, [...]>`")?;
        let mesh = match &self.tok.tok {
            Tok::Symbol(m) => m.clone(),
            Tok::Less | Tok::Ident("mesh") | Tok::Hash("sdy.mesh") => {
                return self.err("inline meshes are not supported in shardings; declare the mesh with `sdy.mesh @name = <...>` and write `@name`")
            }
            other => return self.err(format!("expected the mesh name (@mesh) at the start of a sharding, found {other}")),
        };
        self.bump()?;
        self.expect(Tok::Comma, "after the mesh name of a sharding")?;
        self.expect(
            Tok::LSquare,
            "to open the dimension shardings (`[{...}, ...]`, `[]` for a scalar)",
        )?;
        let mut s = Sharding::new(&mesh, Vec::new());
        if !self.eat(Tok::RSquare)? {
            loop {
                s.dims.push(self.dim_sharding()?);
                if self.eat(Tok::Comma)? {
                    continue;
                }
                if self.eat(Tok::RSquare)? {
                    break;
                }
                return self.err(format!(
                    "expected ',' or ']' after dimension sharding, found {}",
                    self.tok.tok
                ));
            }
        }
        let mut reduction: Option<(Reduction, usize)> = None;
        while self.eat(Tok::Comma)? {
            let at = self.tok.start;
            let key = self
                .ident("(replicated=, unreduced= or reduction= after the dimension shardings)")?;
            self.expect(Tok::Equal, &format!("after '{key}'"))?;
            match key {
                "replicated" => s.replicated = self.axis_set("replicated")?,
                "unreduced" => {
                    // Shardy writes a non-sum reduction as `unreduced=max{"x"}`.
                    if let Tok::Ident(r) = self.tok.tok {
                        let op = Reduction::from_name(r).ok_or_else(|| self.error_here(unknown_reduction(r)))?;
                        reduction = Some((op, self.tok.start));
                        self.bump()?;
                    }
                    s.unreduced = self.axis_set("unreduced")?;
                }
                "reduction" => {
                    let r = self.ident("(sum, max, min, product, and or or)")?;
                    let op = Reduction::from_name(r).ok_or_else(|| self.error_at(self.prev_end - r.len(), unknown_reduction(r)))?;
                    if reduction.is_some() {
                        return self.err_at(at, "the reduction is given twice");
                    }
                    reduction = Some((op, at));
                }
                _ => return self.err_at(at, format!("unknown sharding field `{key}`; expected replicated, unreduced or reduction")),
            }
        }
        if let Some((op, at)) = reduction {
            if s.unreduced.is_empty() && op != Reduction::Sum {
                return self.err_at(at, "a reduction other than sum needs unreduced axes (`unreduced={\"x\"}, reduction=max`)");
            }
            s.reduction = op;
        }
        self.expect(Tok::Greater, "to close the sharding")?;
        Ok(s)
    }

    /// `#sdy.sharding<...>`
    pub(super) fn sharding_attr(&mut self) -> PResult<Sharding> {
        match self.tok.tok {
            Tok::Hash("sdy.sharding") => {
                self.bump()?;
                self.sharding_body()
            }
            Tok::Hash("sdy.sharding_per_value") => {
                self.err("expected #sdy.sharding<...> for one value, found #sdy.sharding_per_value (which annotates op results)")
            }
            _ => self.err(format!("expected a sharding `#sdy.sharding<@mesh, [...]>`, found {}", self.tok.tok)),
        }
    }

    /// `#sdy.sharding_per_value<[<@mesh, [...]>, ...]>`
    pub(super) fn sharding_per_value(&mut self) -> PResult<Vec<Sharding>> {
        match self.tok.tok {
            Tok::Hash("sdy.sharding_per_value") => self.bump()?,
            Tok::Hash("sdy.sharding") => {
                return self.err("an op's sdy.sharding lists one sharding per result: write #sdy.sharding_per_value<[<@mesh, [...]>]>")
            }
            _ => {
                return self.err(format!(
                    "expected #sdy.sharding_per_value<[<@mesh, [...]>, ...]>, found {}",
                    self.tok.tok
                ))
            }
        };
        self.expect(Tok::Less, "after #sdy.sharding_per_value")?;
        self.expect(Tok::LSquare, "to open the list of shardings")?;
        let mut out = Vec::new();
        if !self.eat(Tok::RSquare)? {
            loop {
                out.push(self.sharding_body()?);
                if self.eat(Tok::Comma)? {
                    continue;
                }
                self.expect(Tok::RSquare, "after the shardings")?;
                break;
            }
        }
        self.expect(Tok::Greater, "to close #sdy.sharding_per_value")?;
        Ok(out)
    }

    // ----- dictionaries -----

    /// The optional `{key = value, ...}` after op `op`'s custom syntax (at `offset`), as
    /// generic attributes for the syntax to take its properties from.
    pub(super) fn trailing_attrs(&mut self, op: &str, offset: usize) -> PResult<GenericAttrs> {
        let entries = if self.is(&Tok::LBrace) {
            self.dict_entries()?
        } else {
            Vec::new()
        };
        Ok(GenericAttrs {
            op: op.to_string(),
            offset,
            entries,
            sites: Vec::new(),
        })
    }

    /// `{key = value, ...}`: each value kept as a source span for the caller to read.
    pub(super) fn dict_entries(&mut self) -> PResult<Vec<Entry>> {
        self.expect(Tok::LBrace, "to open the attribute dictionary")?;
        let mut out = Vec::new();
        if self.eat(Tok::RBrace)? {
            return Ok(out);
        }
        loop {
            let key_offset = self.tok.start;
            let (key, name) = match &self.tok.tok {
                Tok::Ident(k) => (k.to_string(), k.to_string()),
                Tok::Str(s) => (
                    self.src[self.tok.start..self.tok.end].to_string(),
                    s.clone(),
                ),
                other => return self.err(format!("expected an attribute name, found {other}")),
            };
            self.bump()?;
            let span = if self.eat(Tok::Equal)? {
                Some(self.raw_value()?)
            } else {
                None
            };
            if out.iter().any(|e: &Entry| e.name == name) {
                return self.err_at(key_offset, format!("attribute `{key}` is given twice"));
            }
            out.push(Entry {
                key,
                name,
                key_offset,
                span,
            });
            if self.eat(Tok::Comma)? {
                continue;
            }
            if self.eat(Tok::RBrace)? {
                return Ok(out);
            }
            return self.err(format!(
                "expected ',' or '}}' after attribute `{}`, found {}",
                out.last().map_or("", |e| &e.key),
                self.tok.tok
            ));
        }
    }

    /// Skips one attribute value (balanced brackets) up to a `,` or `}` at depth 0 and
    /// returns its span.
    fn raw_value(&mut self) -> PResult<(usize, usize)> {
        let start = self.tok.start;
        let first = self.tok.tok.clone();
        let mut depth = 0usize;
        loop {
            let unbalanced = match self.tok.tok {
                Tok::Eof => true,
                Tok::Comma | Tok::RBrace if depth == 0 => break,
                Tok::LParen | Tok::LSquare | Tok::LBrace | Tok::Less => {
                    depth += 1;
                    false
                }
                Tok::RParen | Tok::RSquare | Tok::RBrace | Tok::Greater => {
                    match depth.checked_sub(1) {
                        Some(d) => {
                            depth = d;
                            false
                        }
                        None => true,
                    }
                }
                _ => false,
            };
            if unbalanced {
                // A malformed sharding: its own parser says what is wrong.
                let precise = match first {
                    Tok::Hash("sdy.sharding") => self
                        .at_offset(start, |p| p.sharding_attr().map(|_| ()))
                        .err(),
                    Tok::Hash("sdy.sharding_per_value") => self
                        .at_offset(start, |p| p.sharding_per_value().map(|_| ()))
                        .err(),
                    _ => None,
                };
                return Err(precise.unwrap_or_else(|| {
                    self.error_at(
                        start,
                        "this attribute value does not end: expected ',' or '}' after it; check that its brackets are balanced",
                    )
                }));
            }
            self.bump()?;
        }
        if self.prev_end <= start || self.tok.start == start {
            return self.err("expected an attribute value after '='");
        }
        Ok((start, self.prev_end))
    }
}

fn flatten<'a>(tree: Tree<'a>, out: &mut Vec<(Elem<'a>, usize)>) {
    match tree {
        Tree::Leaf(e, at) => out.push((e, at)),
        Tree::List(items, _) => items.into_iter().for_each(|t| flatten(t, out)),
    }
}

fn mask(width: usize) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

fn to_usizes(v: Vec<i64>) -> Option<Vec<usize>> {
    v.into_iter().map(|x| usize::try_from(x).ok()).collect()
}

fn unknown_precision(name: &str) -> String {
    let known = Precision::ALL
        .iter()
        .map(|p| p.name())
        .collect::<Vec<_>>()
        .join(", ");
    format!("unknown precision `{name}`; expected one of {known}")
}

fn unknown_reduction(name: &str) -> String {
    let known = Reduction::ALL
        .iter()
        .map(|r| r.name())
        .collect::<Vec<_>>()
        .join(", ");
    format!("unknown reduction `{name}`; expected one of {known}")
}

/// The element types shardc reads, for messages: `f32, f64, bf16, ...`.
fn known_dtypes() -> String {
    DType::ALL.map(DType::name).join(", ")
}
