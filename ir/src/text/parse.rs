//! The recursive-descent parser: modules, meshes, functions, blocks, regions and the parts
//! common to every op. What is particular to each op lives in the table of `ops.rs`.
//!
//! Functions are built through [`FunctionBuilder`], so every op is type-checked as it is
//! read and ids come out in the order a builder gives them. Errors carry the position of
//! the token at fault; checks that need the whole module (a sharding's mesh declared
//! further down, a call of a function defined later) are deferred to the end and keep the
//! position where the sharding or call was written.

use super::attr::Entry;
use super::chlo;
use super::lexer::{Lexer, Tok, Token, error_at, position};
use super::narrow::{self, Narrow};
use super::ops::{self, OpSyntax};
use crate::builder::FunctionBuilder;
use crate::dtype::{DType, TensorType};
use crate::error::{IrError, ParseError};
use crate::mesh::Mesh;
use crate::module::{BlockId, Module, ValueAttrs, ValueId, Visibility};
use crate::op::OpKind;
use crate::sharding::{Sharding, Uneven};
use crate::verify;
use std::collections::{HashMap, HashSet};

pub(super) type PResult<T> = Result<T, ParseError>;

/// `stablehlo.custom_call`, read by `custom_call.rs`.
const CUSTOM_CALL: &str = "stablehlo.custom_call";
/// `jax.experimental.shard_alike`'s hint that values share a sharding.
const SHARDING_GROUP: &str = "sdy.sharding_group";
/// Deepest nesting of regions (a reduce in the reducer of a reduce in ...).
pub(super) const MAX_REGION_DEPTH: usize = 16;

/// A block argument as written: its name, offset, type, whether it is complex, and its
/// narrow type (held in a wider one, see `narrow.rs`).
pub(super) type BlockArg<'a> = (&'a str, usize, TensorType, bool, Option<Narrow>);

/// A use of a value, as written.
#[derive(Clone, Debug)]
pub(super) struct Use {
    pub id: ValueId,
    pub offset: usize,
    /// The name as written: `%cst_0`, `%2#1`.
    pub name: String,
}

/// Something an op's text asks to check once its types are known.
#[derive(Clone, Debug)]
pub(super) enum Site {
    /// The sharding written at `offset` applies to result `result` (a sharding constraint).
    Sharding {
        offset: usize,
        result: usize,
        sharding: Sharding,
    },
    /// A call of `callee` written at `offset`.
    Call { offset: usize, callee: String },
}

/// An op as read from the text, ready to be added to a function.
#[derive(Debug)]
pub(super) struct Parsed {
    pub kind: OpKind,
    pub operands: Vec<Use>,
    /// Operand types as the type signature states them.
    pub operand_types: Vec<TensorType>,
    pub result_types: Vec<TensorType>,
    pub regions: Vec<BlockId>,
    /// `sdy.sharding` of the results, with where it was written.
    pub shardings: Option<(usize, Vec<Sharding>)>,
    pub attrs: Vec<(String, String)>,
    pub sites: Vec<Site>,
}

impl Parsed {
    pub fn new(
        kind: OpKind,
        operands: Vec<Use>,
        (operand_types, result_types): (Vec<TensorType>, Vec<TensorType>),
    ) -> Parsed {
        Parsed {
            kind,
            operands,
            operand_types,
            result_types,
            regions: Vec::new(),
            shardings: None,
            attrs: Vec::new(),
            sites: Vec::new(),
        }
    }

    pub fn with_attrs(mut self, (shardings, attrs): OpAttrs) -> Parsed {
        self.shardings = shardings;
        self.attrs = attrs;
        self
    }
}

/// An op's attribute dictionary: its shardings (with their offset) and the other entries.
pub(super) type OpAttrs = (Option<(usize, Vec<Sharding>)>, Vec<(String, String)>);

/// The attributes of an op in generic form, for its syntax to take what it knows.
pub(super) struct GenericAttrs {
    pub op: String,
    pub offset: usize,
    pub entries: Vec<Entry>,
    pub sites: Vec<Site>,
}

/// A checked name binding in a function.
struct Binding {
    values: Vec<ValueId>,
    offset: usize,
}

/// The function being read: its builder and the value names in scope.
pub(super) struct FuncState {
    pub b: FunctionBuilder,
    pub name: String,
    scopes: Vec<HashMap<String, Binding>>,
    /// The values that hold complex numbers as pairs (see `complex.rs`).
    pub complex: HashSet<ValueId>,
    /// The values that hold values of a narrow type (see `narrow.rs`), with that type.
    pub narrow: HashMap<ValueId, Narrow>,
}

impl FuncState {
    fn new(b: FunctionBuilder, name: &str) -> FuncState {
        FuncState {
            b,
            name: name.to_string(),
            scopes: vec![HashMap::new()],
            complex: HashSet::new(),
            narrow: HashMap::new(),
        }
    }

    fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    /// `%name in @f`, for messages.
    pub fn at(&self, value: &str) -> String {
        format!("{value} in @{}", self.name)
    }
}

/// A result name group being defined: `%2:2`.
struct ResultGroup<'a> {
    name: &'a str,
    count: usize,
    offset: usize,
}

/// Which op ends a block.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Terminator {
    /// `return` / `func.return`, ending a function body.
    Func,
    /// `stablehlo.return`, ending a region.
    Region,
}

/// A deferred module-level check.
enum Deferred {
    Sharding {
        offset: usize,
        sharding: Sharding,
        ty: TensorType,
        at: String,
    },
    Call {
        offset: usize,
        callee: String,
        args: Vec<TensorType>,
        results: Vec<TensorType>,
        at: String,
    },
}

pub(super) struct Parser<'a> {
    pub src: &'a str,
    lex: Lexer<'a>,
    /// The current (not yet consumed) token.
    pub tok: Token<'a>,
    /// The end of the last consumed token.
    pub prev_end: usize,
    verify: bool,
    /// Whether shardings may split dimensions their axes do not divide (padded).
    uneven: Uneven,
    module: Module,
    deferred: Vec<Deferred>,
    region_depth: usize,
    /// Location aliases (`#loc3 = loc("params['w']")`): each one's name, or the alias it
    /// names; `None` for locations without a name (files, call sites).
    loc_aliases: HashMap<String, Option<Loc>>,
    /// The locations of function arguments (`%arg0: t loc("x")`): function, argument.
    arg_locs: Vec<(String, usize, Loc)>,
    /// The locations of ops (`... loc(#loc88)`): function, op index.
    op_locs: Vec<(String, usize, Loc)>,
    /// For each tensor type read so far, whether it was complex (read as pairs).
    pub complex: Vec<bool>,
    /// For each tensor type read so far, its narrow type and where it was written, if it
    /// was one (read as the type holding it, see `narrow.rs`).
    pub narrow: Vec<Option<(Narrow, usize)>>,
    /// What the reader did that the user should know, by kind: the lines of each kind.
    notes: Vec<(Notice, Vec<usize>)>,
}

/// Something the reader did that changes what a program does at run time, which the
/// user is told of ([`Parser::notice`]).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Notice {
    /// A Python callback with no results (`jax.debug.print`, `jax.debug.callback`) left
    /// out.
    CallbackDropped,
    /// Equinox's runtime check (`eqx.error_if`) read as `EQX_ON_ERROR=nan` reads it.
    ErrorCheckAsNan,
}

impl Notice {
    fn text(self, lines: &[usize]) -> String {
        let at = lines
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        let s = if lines.len() == 1 { "" } else { "s" };
        match self {
            Notice::CallbackDropped => format!(
                "note: the Python callback{s} at line{s} {at} (jax.debug.print, jax.debug.callback) left out: a callback's function lives in the process that exported the program, and one with no results cannot change what the program computes"
            ),
            Notice::ErrorCheckAsNan => format!(
                "note: equinox's runtime check{s} (eqx.error_if, as diffrax, optimistix and lineax use it) at line{s} {at} read as `EQX_ON_ERROR=nan` reads them: a failing check gives NaN (integers: their largest value; booleans: true) in the value it guards instead of raising, as its message lives in the process that exported the program"
            ),
        }
    }
}

/// The name part of a location: `loc("x")` or `loc("jit(f)/dot"(#loc3))`, or an alias.
#[derive(Clone, Debug)]
enum Loc {
    Name(String),
    Alias(String),
}

impl<'a> Parser<'a> {
    /// Parses a whole module. With `verify`, shardings, meshes, calls, reducers and
    /// duplicate names are checked too (with positions), then the module is verified.
    pub fn parse(src: &'a str, verify: bool) -> Result<Module, IrError> {
        Parser::parse_with(src, verify, Uneven::Refuse)
    }

    /// [`parse`](Self::parse), with `uneven` saying whether the verifier's checks accept
    /// shardings that do not divide their dimensions.
    pub fn parse_with(src: &'a str, verify: bool, uneven: Uneven) -> Result<Module, IrError> {
        Parser::parse_noted(src, verify, uneven).map(|(m, _)| m)
    }

    /// [`parse_with`](Self::parse_with), and the notes on what the reader did that changes
    /// what the program does at run time (one line each).
    pub fn parse_noted(
        src: &'a str,
        verify: bool,
        uneven: Uneven,
    ) -> Result<(Module, Vec<String>), IrError> {
        let mut lex = Lexer::new(src);
        let tok = lex
            .next_token()
            .map_err(|e| error_at(src, e.offset, e.message))?;
        let mut p = Parser {
            src,
            lex,
            tok,
            prev_end: 0,
            verify,
            uneven,
            module: Module::default(),
            deferred: Vec::new(),
            region_depth: 0,
            loc_aliases: HashMap::new(),
            arg_locs: Vec::new(),
            op_locs: Vec::new(),
            complex: Vec::new(),
            narrow: Vec::new(),
            notes: Vec::new(),
        };
        p.file()?;
        p.run_deferred()?;
        p.name_arguments();
        p.name_ops();
        if verify {
            verify::verify_module_with(&p.module, uneven)?;
        }
        let notes = p.notes.iter().map(|(n, lines)| n.text(lines)).collect();
        Ok((p.module, notes))
    }

    /// Records `notice` for the op at byte `offset`.
    pub fn notice(&mut self, notice: Notice, offset: usize) {
        let line = position(self.src, offset).line;
        match self.notes.iter_mut().find(|(n, _)| *n == notice) {
            Some((_, lines)) => lines.push(line),
            None => self.notes.push((notice, vec![line])),
        }
    }

    /// `true` when the verifier's checks run as the text is read.
    pub fn verifying(&self) -> bool {
        self.verify
    }

    // ----- tokens -----

    /// Consumes the current token and returns it.
    pub fn bump(&mut self) -> PResult<Token<'a>> {
        let next = self
            .lex
            .next_token()
            .map_err(|e| error_at(self.src, e.offset, e.message))?;
        let cur = std::mem::replace(&mut self.tok, next);
        self.prev_end = cur.end;
        Ok(cur)
    }

    pub fn is(&self, t: &Tok<'_>) -> bool {
        &self.tok.tok == t
    }

    pub fn is_ident(&self, s: &str) -> bool {
        matches!(self.tok.tok, Tok::Ident(i) if i == s)
    }

    /// Consumes the current token if it is `t`.
    pub fn eat(&mut self, t: Tok<'_>) -> PResult<bool> {
        if self.is(&t) {
            self.bump()?;
            return Ok(true);
        }
        Ok(false)
    }

    pub fn eat_ident(&mut self, s: &str) -> PResult<bool> {
        if self.is_ident(s) {
            self.bump()?;
            return Ok(true);
        }
        Ok(false)
    }

    /// Consumes `t` or fails with "expected `t` `context`, found ...".
    pub fn expect(&mut self, t: Tok<'_>, context: &str) -> PResult<()> {
        if self.eat(t.clone())? {
            return Ok(());
        }
        Err(self.missing(format!("expected {t} {context}, found {}", self.tok.tok)))
    }

    pub fn expect_ident(&mut self, s: &str, context: &str) -> PResult<()> {
        if self.eat_ident(s)? {
            return Ok(());
        }
        Err(self.missing(format!("expected '{s}' {context}, found {}", self.tok.tok)))
    }

    /// A bare identifier.
    pub fn ident(&mut self, what: &str) -> PResult<&'a str> {
        let Tok::Ident(s) = self.tok.tok else {
            return self.err(format!(
                "expected an identifier {what}, found {}",
                self.tok.tok
            ));
        };
        self.bump()?;
        Ok(s)
    }

    pub fn error_at(&self, offset: usize, message: impl Into<String>) -> ParseError {
        error_at(self.src, offset, message)
    }

    /// An error at the current token (at the end of the input: just after the last token).
    pub fn error_here(&self, message: impl Into<String>) -> ParseError {
        let at = if self.tok.tok == Tok::Eof {
            self.prev_end
        } else {
            self.tok.start
        };
        self.error_at(at, message)
    }

    /// An error about something missing before the current token: reported just after
    /// the previous token when the current one is on a later line.
    fn missing(&self, message: String) -> ParseError {
        let gap = self.src.get(self.prev_end..self.tok.start).unwrap_or("");
        let at = if self.tok.tok == Tok::Eof || gap.contains('\n') {
            self.prev_end
        } else {
            self.tok.start
        };
        self.error_at(at, message)
    }

    pub fn err<T>(&self, message: impl Into<String>) -> PResult<T> {
        Err(self.error_here(message))
    }

    pub fn err_at<T>(&self, offset: usize, message: impl Into<String>) -> PResult<T> {
        Err(self.error_at(offset, message))
    }

    /// Reads with `f` from byte `offset` on, then comes back to where the parser was.
    pub fn at_offset<T>(
        &mut self,
        offset: usize,
        f: impl FnOnce(&mut Self) -> PResult<T>,
    ) -> PResult<T> {
        let saved = (self.lex.clone(), self.tok.clone(), self.prev_end);
        self.lex.seek(offset);
        let result = match self.lex.next_token() {
            Ok(t) => {
                self.tok = t;
                f(self)
            }
            Err(e) => Err(error_at(self.src, e.offset, e.message)),
        };
        (self.lex, self.tok, self.prev_end) = saved;
        result
    }

    /// Reads the attribute value at `span` with `f`, which must consume all of it.
    pub fn reparse<T>(
        &mut self,
        span: (usize, usize),
        f: impl FnOnce(&mut Self) -> PResult<T>,
    ) -> PResult<T> {
        self.at_offset(span.0, |p| {
            let v = f(p)?;
            if p.prev_end < span.1 {
                return p.err(format!("unexpected {} in the attribute value", p.tok.tok));
            }
            Ok(v)
        })
    }

    /// The source text of a span.
    pub fn text(&self, span: (usize, usize)) -> &'a str {
        self.src.get(span.0..span.1).unwrap_or("")
    }

    /// Skips a location `loc(...)` if there is one.
    pub fn skip_loc(&mut self) -> PResult<()> {
        self.loc().map(|_| ())
    }

    /// A location, if one follows, reduced to its name (`None` for one without a name).
    fn loc(&mut self) -> PResult<Option<Loc>> {
        if !self.is_ident("loc") {
            return Ok(None);
        }
        self.bump()?;
        self.expect(Tok::LParen, "after 'loc'")?;
        let loc = match &self.tok.tok {
            Tok::Str(s) => Some(Loc::Name(s.clone())),
            Tok::Hash(a) => Some(Loc::Alias(a.to_string())),
            _ => None,
        };
        let mut depth = 1usize;
        while depth > 0 {
            match self.tok.tok {
                Tok::Eof => return self.err("unterminated location: expected ')'"),
                Tok::LParen => depth += 1,
                Tok::RParen => depth -= 1,
                _ => {}
            }
            self.bump()?;
        }
        Ok(loc)
    }

    // ----- module -----

    fn file(&mut self) -> PResult<()> {
        self.skip_aliases()?;
        match &self.tok.tok {
            Tok::Ident("module") => self.module_pretty()?,
            Tok::Str(s) if s == "builtin.module" => self.module_generic()?,
            _ => {
                // An implicit module: meshes and functions at the top level.
                while !matches!(self.tok.tok, Tok::Eof | Tok::Hash(_)) {
                    self.item()?;
                }
            }
        }
        self.skip_aliases()?;
        if !self.is(&Tok::Eof) {
            return self.err(format!(
                "expected the end of the input after the module, found {}",
                self.tok.tok
            ));
        }
        Ok(())
    }

    /// Names each function argument by its location, as JAX writes them with debug
    /// information (`lowered.as_text(debug_info=True)`: `%arg0: t loc("params['w']")`):
    /// the attribute `jax.arg_info`, which older JAX wrote itself, unless it is there.
    fn name_arguments(&mut self) {
        for (func, i, loc) in std::mem::take(&mut self.arg_locs) {
            let Some(name) = self.loc_name(loc) else {
                continue;
            };
            if name.is_empty() {
                continue;
            }
            let Some(f) = self.module.functions.iter_mut().find(|f| f.name == func) else {
                continue;
            };
            let Some(attrs) = f.arg_attrs.get_mut(i) else {
                continue;
            };
            if attrs.attrs.iter().all(|(k, _)| k != "jax.arg_info") {
                attrs
                    .attrs
                    .push(("jax.arg_info".to_string(), crate::module::quoted(&name)));
            }
        }
    }

    /// A location's name, following aliases (a few hops at most: a cycle names nothing).
    fn loc_name(&self, loc: Loc) -> Option<String> {
        let mut loc = Some(loc);
        for _ in 0..8 {
            match loc {
                Some(Loc::Alias(a)) => loc = self.loc_aliases.get(&a).cloned().flatten(),
                Some(Loc::Name(n)) => return Some(n),
                None => return None,
            }
        }
        None
    }

    /// Records each op's path in JAX's trace, as JAX writes it in the op's location with
    /// debug information (`loc("jit(step)/jvp(Mlp)/Dense_0/dot_general"(#loc76))`), as the
    /// op attribute `jax.op_path`: explain names the op's results by it
    /// ([`Function::user_names`](crate::Function::user_names)). Locations that are not such
    /// paths (files, call sites, bare names) are dropped as before.
    fn name_ops(&mut self) {
        for (func, i, loc) in std::mem::take(&mut self.op_locs) {
            let Some(path) = self.loc_name(loc) else {
                continue;
            };
            if !path.contains('/') {
                continue;
            }
            let Some(f) = self.module.functions.iter_mut().find(|f| f.name == func) else {
                continue;
            };
            let Some(op) = f.ops.get_mut(i) else { continue };
            if op.attrs.iter().all(|(k, _)| k != crate::module::OP_PATH) {
                op.attrs.push((
                    crate::module::OP_PATH.to_string(),
                    crate::module::quoted(&path),
                ));
            }
        }
    }

    /// Skips location aliases `#loc1 = loc(...)`.
    fn skip_aliases(&mut self) -> PResult<()> {
        while let Tok::Hash(name) = self.tok.tok {
            self.bump()?;
            self.expect(Tok::Equal, &format!("after the attribute alias #{name}"))?;
            if !self.is_ident("loc") {
                return self.err(format!("attribute aliases other than locations are not supported (#{name} = ...); write the attribute where it is used"));
            }
            let loc = self.loc()?;
            self.loc_aliases.insert(name.to_string(), loc);
        }
        Ok(())
    }

    /// `module @name attributes {...} { ... }`
    fn module_pretty(&mut self) -> PResult<()> {
        self.bump()?;
        if let Tok::Symbol(name) = &self.tok.tok {
            self.module.name = Some(name.clone());
            self.bump()?;
        }
        if self.eat_ident("attributes")? {
            let entries = self.dict_entries()?;
            self.module.attrs = self.raw_entries(entries);
        }
        self.expect(Tok::LBrace, "to open the module body")?;
        while !self.is(&Tok::RBrace) {
            self.item()?;
        }
        self.bump()?;
        self.skip_loc()
    }

    /// `"builtin.module"() <{sym_name = "name"}> ({ ... }) {attrs} : () -> ()`
    fn module_generic(&mut self) -> PResult<()> {
        let (offset, mut g) = self.generic_header("builtin.module")?;
        if let Some(name) = self.prop(&mut g, "sym_name", |p| p.string_attr("the module name"))? {
            self.module.name = Some(name);
        }
        self.expect(Tok::LParen, "to open the module's region")?;
        self.expect(Tok::LBrace, "to open the module's region")?;
        while !self.is(&Tok::RBrace) {
            self.item()?;
        }
        self.bump()?;
        self.expect(Tok::RParen, "to close the module's region")?;
        if self.is(&Tok::LBrace) {
            let more = self.dict_entries()?;
            g.entries.extend(more);
        }
        self.empty_signature(offset, "builtin.module")?;
        self.module.attrs = self.raw_entries(g.entries);
        Ok(())
    }

    /// `"name"() <{props}>`: the start of a module-level op in generic form.
    fn generic_header(&mut self, name: &str) -> PResult<(usize, GenericAttrs)> {
        let offset = self.bump()?.start;
        self.expect(Tok::LParen, &format!("after \"{name}\""))?;
        self.expect(Tok::RParen, &format!("(\"{name}\" takes no operands)"))?;
        let mut entries = Vec::new();
        if self.eat(Tok::Less)? {
            entries = self.dict_entries()?;
            self.expect(Tok::Greater, "to close the properties `<{...}>`")?;
        }
        Ok((
            offset,
            GenericAttrs {
                op: name.to_string(),
                offset,
                entries,
                sites: Vec::new(),
            },
        ))
    }

    /// `: () -> ()` and an optional location.
    fn empty_signature(&mut self, offset: usize, name: &str) -> PResult<()> {
        self.expect(Tok::Colon, &format!("before the type of \"{name}\""))?;
        let (ins, outs) = self.function_type("(the op's type `() -> ()`)")?;
        if !ins.is_empty() || !outs.is_empty() {
            return self.err_at(offset, format!("\"{name}\" has type () -> ()"));
        }
        self.skip_loc()
    }

    /// One mesh or function of a module.
    fn item(&mut self) -> PResult<()> {
        match &self.tok.tok {
            Tok::Ident("sdy.mesh") => self.mesh_pretty(),
            Tok::Ident("func.func") => self.func_pretty(),
            Tok::Str(s) if s == "sdy.mesh" => self.mesh_generic(),
            Tok::Str(s) if s == "func.func" => self.func_generic(),
            Tok::Ident("module") => self.err("nested modules are not supported; put the meshes and functions in one module"),
            Tok::Ident(name) if name.contains('.') => {
                self.err(format!("`{name}` cannot appear at module level; a module holds `sdy.mesh` and `func.func` ops"))
            }
            other => self.err(format!("expected `sdy.mesh` or `func.func` in the module, found {other}; ops belong in a function body")),
        }
    }

    /// The non-sharding entries of a dictionary, as written.
    fn raw_entries(&self, entries: Vec<Entry>) -> Vec<(String, String)> {
        entries
            .into_iter()
            .map(|e| {
                (
                    e.key,
                    e.span.map(|s| self.text(s).to_string()).unwrap_or_default(),
                )
            })
            .collect()
    }

    /// Takes property `key` of a generic op and reads it with `f`.
    pub fn prop<T>(
        &mut self,
        g: &mut GenericAttrs,
        key: &str,
        f: impl FnOnce(&mut Self) -> PResult<T>,
    ) -> PResult<Option<T>> {
        let Some(i) = g.entries.iter().position(|e| e.name == key) else {
            return Ok(None);
        };
        let entry = g.entries.remove(i);
        let Some(span) = entry.span else {
            return self.err_at(
                entry.key_offset,
                format!("property `{key}` of {} needs a value", g.op),
            );
        };
        self.reparse(span, f).map(Some)
    }

    /// Like [`prop`](Self::prop), but the property must be there.
    pub fn required_prop<T>(
        &mut self,
        g: &mut GenericAttrs,
        key: &str,
        example: &str,
        f: impl FnOnce(&mut Self) -> PResult<T>,
    ) -> PResult<T> {
        match self.prop(g, key, f)? {
            Some(v) => Ok(v),
            None => self.err_at(
                g.offset,
                format!("\"{}\" needs the property `{key} = {example}`", g.op),
            ),
        }
    }

    // ----- meshes -----

    /// `sdy.mesh @mesh = <["data"=2]> {attrs}` (the attributes are dropped).
    fn mesh_pretty(&mut self) -> PResult<()> {
        self.bump()?;
        let offset = self.tok.start;
        let name = self.symbol_name("the mesh name")?;
        self.expect(Tok::Equal, "after the mesh name")?;
        if matches!(self.tok.tok, Tok::Hash("sdy.mesh")) {
            self.bump()?;
        }
        let mesh = self.mesh_body(&name)?;
        if self.is(&Tok::LBrace) {
            self.dict_entries()?;
        }
        self.skip_loc()?;
        self.add_mesh(mesh, offset)
    }

    /// `"sdy.mesh"() <{mesh = #sdy.mesh<...>, sym_name = "mesh"}> : () -> ()`
    fn mesh_generic(&mut self) -> PResult<()> {
        let (offset, mut g) = self.generic_header("sdy.mesh")?;
        let name = self.required_prop(&mut g, "sym_name", "\"mesh\"", |p| {
            p.string_attr("the mesh name")
        })?;
        let mesh = self.required_prop(&mut g, "mesh", "#sdy.mesh<[\"x\"=2]>", |p| {
            if !matches!(p.tok.tok, Tok::Hash("sdy.mesh")) {
                return p.err(format!("expected #sdy.mesh<[...]>, found {}", p.tok.tok));
            }
            p.bump()?;
            p.mesh_body(&name)
        })?;
        if self.is(&Tok::LBrace) {
            self.dict_entries()?;
        }
        self.empty_signature(offset, "sdy.mesh")?;
        self.add_mesh(mesh, offset)
    }

    fn add_mesh(&mut self, mesh: Mesh, offset: usize) -> PResult<()> {
        // Shardings print the mesh name bare (`<@mesh, ...>`), so it must read back bare.
        let bare = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.' | '-');
        if mesh.name.is_empty() || !mesh.name.chars().all(bare) {
            return self.err_at(
                offset,
                format!("mesh name {:?} cannot be written in a sharding; name meshes with letters, digits, '_', '$', '.' or '-'", mesh.name),
            );
        }
        if self.verify {
            if self.module.mesh(&mesh.name).is_some() {
                let e = IrError::Duplicate {
                    what: "mesh",
                    name: mesh.name.clone(),
                };
                return self.err_at(offset, e.to_string());
            }
            mesh.validate()
                .map_err(|e| self.error_at(offset, e.to_string()))?;
        }
        self.module.meshes.push(mesh);
        Ok(())
    }

    // ----- functions -----

    /// `func.func public @main(%arg0: t {attrs}, ...) -> (t {attrs}, ...) { ... }`
    fn func_pretty(&mut self) -> PResult<()> {
        self.bump()?;
        let visibility = if self.eat_ident("private")? {
            Visibility::Private
        } else {
            self.eat_ident("public")?;
            Visibility::Public
        };
        let name_offset = self.tok.start;
        let name = self.symbol_name("the function name")?;
        self.check_new_function(&name, name_offset)?;
        self.expect(Tok::LParen, "to open the function's arguments")?;
        let mut args: Vec<(&'a str, usize, TensorType, ValueAttrs, Option<usize>)> = Vec::new();
        let mut complex_args = Vec::new();
        let narrow_mark = self.narrow.len();
        if !self.eat(Tok::RParen)? {
            loop {
                let offset = self.tok.start;
                let Tok::Value {
                    name: arg,
                    index: None,
                } = self.tok.tok
                else {
                    return self.err(format!(
                        "expected an argument name (%arg0), found {}",
                        self.tok.tok
                    ));
                };
                self.bump()?;
                self.expect(Tok::Colon, &format!("after the argument %{arg}"))?;
                let ty = self.tensor_type(&format!("for the argument %{arg}"))?;
                let complex = self.complex.last() == Some(&true);
                let (mut attrs, at) = self.value_attrs()?;
                if complex {
                    let what = format!("argument {} (%{arg}) of @{name}", args.len());
                    super::complex::widen_attrs(self, &mut attrs, at, &ty, &what)?;
                }
                complex_args.push(complex);
                if let Some(loc) = self.loc()? {
                    self.arg_locs.push((name.clone(), args.len(), loc));
                }
                args.push((arg, offset, ty, attrs, at));
                if self.eat(Tok::Comma)? {
                    continue;
                }
                self.expect(Tok::RParen, "after the function's arguments")?;
                break;
            }
        }
        let mut results: Vec<(TensorType, ValueAttrs, Option<usize>)> = Vec::new();
        if self.eat(Tok::Arrow)? {
            if self.eat(Tok::LParen)? {
                if !self.eat(Tok::RParen)? {
                    loop {
                        let ty = self.tensor_type("for a function result")?;
                        let complex = self.complex.last() == Some(&true);
                        let (mut attrs, at) = self.value_attrs()?;
                        if complex {
                            let what = format!("result {} of @{name}", results.len());
                            super::complex::widen_attrs(self, &mut attrs, at, &ty, &what)?;
                        }
                        self.skip_loc()?;
                        results.push((ty, attrs, at));
                        if self.eat(Tok::Comma)? {
                            continue;
                        }
                        self.expect(Tok::RParen, "after the function's results")?;
                        break;
                    }
                }
            } else {
                results.push((
                    self.tensor_type("for the function result")?,
                    ValueAttrs::default(),
                    None,
                ));
            }
        }
        let narrow_args = self.narrow_signature(narrow_mark);
        if self.is_ident("attributes") {
            return self.err(format!(
                "function attributes are not supported; remove `attributes {{...}}` from @{name}"
            ));
        }
        let types: Vec<TensorType> = args.iter().map(|a| a.2.clone()).collect();
        let mut b = FunctionBuilder::new(&name, &types);
        b.set_visibility(visibility);
        let mut f = FuncState::new(b, &name);
        let entry = self.narrow_entry(&mut f, &narrow_args, name_offset)?;
        for (i, (arg, offset, ty, attrs, at)) in args.into_iter().enumerate() {
            let id = f.b.arg(i);
            if complex_args[i] {
                f.complex.insert(id);
            }
            self.define(&mut f, arg, vec![entry[i]], offset)?;
            if let (Some(s), Some(at)) = (&attrs.sharding, at) {
                self.check_sharding(at, s, &ty, format!("argument {i} (%{arg}) of @{name}"))?;
            }
            *f.b.arg_attrs_mut(i) = attrs;
        }
        self.expect(Tok::LBrace, &format!("to open the body of @{name}"))?;
        self.function_body(f, results)?;
        self.skip_loc()
    }

    /// `"func.func"() <{function_type = ..., sym_name = "main", ...}> ({ ^bb0(...): ... }) : () -> ()`
    fn func_generic(&mut self) -> PResult<()> {
        let (offset, mut g) = self.generic_header("func.func")?;
        let name = self.required_prop(&mut g, "sym_name", "\"main\"", |p| {
            p.string_attr("the function name")
        })?;
        self.check_new_function(&name, offset)?;
        let mark = self.complex.len();
        let narrow_mark = self.narrow.len();
        let (arg_types, result_types) = self.required_prop(
            &mut g,
            "function_type",
            "(tensor<...>) -> tensor<...>",
            |p| p.function_type("(the function type)"),
        )?;
        let visibility = match self
            .prop(&mut g, "sym_visibility", |p| {
                p.string_attr("the visibility")
            })?
            .as_deref()
        {
            None | Some("public") => Visibility::Public,
            Some("private") => Visibility::Private,
            Some(other) => {
                return self.err_at(
                    offset,
                    format!("unsupported visibility \"{other}\"; use \"public\" or \"private\""),
                );
            }
        };
        let arg_attrs = self.prop(&mut g, "arg_attrs", |p| p.value_attrs_list())?;
        let res_attrs = self.prop(&mut g, "res_attrs", |p| p.value_attrs_list())?;
        if let Some(e) = g.entries.first() {
            return self.err_at(
                e.key_offset,
                format!("unsupported property `{}` of func.func @{name}", e.key),
            );
        }
        let mut arg_attrs = self.attrs_for(arg_attrs, arg_types.len(), "arg_attrs", offset)?;
        let mut res_attrs = self.attrs_for(res_attrs, result_types.len(), "res_attrs", offset)?;
        // The function type is the first thing read after `mark`: arguments, then results.
        let written: Vec<bool> = self.complex[mark..].to_vec();
        let attrs = arg_attrs.iter_mut().chain(res_attrs.iter_mut());
        let types = arg_types.iter().chain(&result_types);
        for (i, (((attrs, at), ty), &complex)) in attrs.zip(types).zip(&written).enumerate() {
            if complex {
                let what = format!("value {i} of @{name}'s function type");
                super::complex::widen_attrs(self, attrs, *at, ty, &what)?;
            }
        }
        let narrow_args = self.narrow_signature(narrow_mark);
        let mut b = FunctionBuilder::new(&name, &arg_types);
        b.set_visibility(visibility);
        let mut f = FuncState::new(b, &name);
        let entry = self.narrow_entry(&mut f, &narrow_args, offset)?;
        for (i, (attrs, at)) in arg_attrs.into_iter().enumerate() {
            if let (Some(s), Some(at)) = (&attrs.sharding, at) {
                self.check_sharding(at, s, &arg_types[i], format!("argument {i} of @{name}"))?;
            }
            *f.b.arg_attrs_mut(i) = attrs;
        }
        self.expect(Tok::LParen, "to open the function's region")?;
        self.expect(Tok::LBrace, "to open the function's region")?;
        if let Tok::Caret(label) = self.tok.tok {
            self.bump()?;
            let args = if self.is(&Tok::LParen) {
                self.block_args()?
            } else {
                Vec::new()
            };
            self.expect(Tok::Colon, &format!("after the block label ^{label}"))?;
            if args.len() != arg_types.len() {
                return self.err_at(
                    offset,
                    format!(
                        "@{name} has {} argument(s) in its function_type but its block has {}",
                        arg_types.len(),
                        args.len()
                    ),
                );
            }
            for (i, (arg, at, ty, _, _)) in args.into_iter().enumerate() {
                if ty != arg_types[i] {
                    return self.err_at(
                        at,
                        format!(
                            "block argument %{arg} has type {ty} but function_type says {}",
                            arg_types[i]
                        ),
                    );
                }
                if written.get(i) == Some(&true) {
                    f.complex.insert(f.b.arg(i));
                }
                self.define(&mut f, arg, vec![entry[i]], at)?;
            }
        } else if !arg_types.is_empty() {
            return self.err(format!(
                "expected the entry block `^bb0(...)` naming the {} argument(s) of @{name}",
                arg_types.len()
            ));
        }
        let results = result_types
            .into_iter()
            .zip(res_attrs)
            .map(|(t, (a, at))| (t, a, at))
            .collect();
        self.function_body(f, results)?;
        self.expect(Tok::RParen, "to close the function's region")?;
        if self.is(&Tok::LBrace) {
            let e = self.dict_entries()?;
            if let Some(e) = e.first() {
                return self.err_at(
                    e.key_offset,
                    format!("function attributes are not supported (`{}`)", e.key),
                );
            }
        }
        self.empty_signature(offset, "func.func")
    }

    /// `[{...}, {...}]`: per-argument or per-result attributes in generic form.
    fn value_attrs_list(&mut self) -> PResult<Vec<(ValueAttrs, Option<usize>)>> {
        self.expect(Tok::LSquare, "to open the list of attribute dictionaries")?;
        let mut out = Vec::new();
        if self.eat(Tok::RSquare)? {
            return Ok(out);
        }
        loop {
            out.push(self.value_attrs()?);
            if self.eat(Tok::Comma)? {
                continue;
            }
            self.expect(Tok::RSquare, "after the attribute dictionaries")?;
            return Ok(out);
        }
    }

    fn attrs_for(
        &self,
        given: Option<Vec<(ValueAttrs, Option<usize>)>>,
        n: usize,
        what: &str,
        offset: usize,
    ) -> PResult<Vec<(ValueAttrs, Option<usize>)>> {
        match given {
            None => Ok(vec![(ValueAttrs::default(), None); n]),
            Some(v) if v.len() == n => Ok(v),
            Some(v) => self.err_at(
                offset,
                format!(
                    "{what} lists {} dictionaries but the function type has {n} entries",
                    v.len()
                ),
            ),
        }
    }

    fn check_new_function(&self, name: &str, offset: usize) -> PResult<()> {
        if self.verify && self.module.function(name).is_some() {
            let e = IrError::Duplicate {
                what: "function",
                name: name.to_string(),
            };
            return self.err_at(offset, e.to_string());
        }
        Ok(())
    }

    /// A function body after its `{`, through its closing `}`; adds the function.
    fn function_body(
        &mut self,
        mut f: FuncState,
        results: Vec<(TensorType, ValueAttrs, Option<usize>)>,
    ) -> PResult<()> {
        let (returned, ret_offset) = self.block_ops(&mut f, Terminator::Func)?;
        self.expect(Tok::RBrace, &format!("after the return of @{}", f.name))?;
        if returned.len() != results.len() {
            return self.err_at(
                ret_offset,
                format!(
                    "@{} returns {} value(s) but its signature declares {} result(s); return one value per result",
                    f.name,
                    returned.len(),
                    results.len()
                ),
            );
        }
        for (i, (u, (ty, attrs, at))) in returned.iter().zip(&results).enumerate() {
            let actual = f.b.ty(u.id);
            if actual != ty {
                return self.err_at(u.offset, format!("@{} returns {} of type {actual} as result {i}, but its signature declares {ty}; return a value of that type or change the signature", f.name, u.name));
            }
            if let (Some(s), Some(at)) = (&attrs.sharding, at) {
                self.check_sharding(
                    *at,
                    s,
                    ty,
                    format!("result {i} ({}) of @{}", u.name, f.name),
                )?;
            }
        }
        let ids: Vec<ValueId> = returned.iter().map(|u| u.id).collect();
        let mut func = f.b.finish(&ids);
        func.result_attrs = results.into_iter().map(|(_, a, _)| a).collect();
        self.module.functions.push(func);
        Ok(())
    }

    /// An attribute dictionary of a function argument or result, if there is one.
    fn value_attrs(&mut self) -> PResult<(ValueAttrs, Option<usize>)> {
        let mut out = ValueAttrs::default();
        let mut at = None;
        if !self.is(&Tok::LBrace) {
            return Ok((out, at));
        }
        for e in self.dict_entries()? {
            match (e.name.as_str(), e.span) {
                (super::format::SHARDING_KEY, Some(span)) => {
                    out.sharding = Some(self.reparse(span, |p| p.sharding_attr())?);
                    at = Some(span.0);
                }
                _ => out.attrs.push((
                    e.key,
                    e.span.map(|s| self.text(s).to_string()).unwrap_or_default(),
                )),
            }
        }
        Ok((out, at))
    }

    /// An op's attribute dictionary, if there is one.
    pub fn op_attrs(&mut self) -> PResult<OpAttrs> {
        if !self.is(&Tok::LBrace) {
            return Ok((None, Vec::new()));
        }
        let entries = self.dict_entries()?;
        self.op_attrs_from(entries)
    }

    pub(super) fn op_attrs_from(&mut self, entries: Vec<Entry>) -> PResult<OpAttrs> {
        let mut shardings = None;
        let mut attrs = Vec::new();
        for e in entries {
            match (e.name.as_str(), e.span) {
                (super::format::SHARDING_KEY, Some(span)) => {
                    shardings = Some((span.0, self.reparse(span, |p| p.sharding_per_value())?));
                }
                _ => attrs.push((
                    e.key,
                    e.span.map(|s| self.text(s).to_string()).unwrap_or_default(),
                )),
            }
        }
        Ok((shardings, attrs))
    }

    // ----- blocks and values -----

    fn define(
        &self,
        f: &mut FuncState,
        name: &str,
        values: Vec<ValueId>,
        offset: usize,
    ) -> PResult<()> {
        if let Some(prev) = f.lookup(name) {
            let line = super::lexer::position(self.src, prev.offset).line;
            return self.err_at(
                offset,
                format!("value %{name} is already defined (line {line}); give it another name"),
            );
        }
        let scope = f
            .scopes
            .last_mut()
            .ok_or_else(|| self.error_at(offset, "no open scope"))?;
        scope.insert(name.to_string(), Binding { values, offset });
        Ok(())
    }

    /// A use of a value.
    /// Reads the rest of an `sdy.sharding_group` (`%x group_id=0 : t`, or generic
    /// `(%x) <{group_id = 0 : i64}> : (t) -> ()`): `jax.experimental.shard_alike`'s hint
    /// that values share a sharding. It changes no value, and shardc's propagation chooses
    /// each value's layout by cost, so it is read and left out.
    fn sharding_group(&mut self, f: &FuncState, generic: bool) -> PResult<()> {
        let context = format!("(the type of {SHARDING_GROUP})");
        if generic {
            self.operand_parens(f)?;
            if self.eat(Tok::Less)? {
                self.dict_entries()?;
                self.expect(Tok::Greater, "to close the properties `<{...}>`")?;
            }
            if self.is(&Tok::LBrace) {
                self.op_attrs()?;
            }
            self.expect(Tok::Colon, &format!("before the type of {SHARDING_GROUP}"))?;
            self.function_type(&context)?;
        } else {
            self.operand(f)?;
            self.expect_ident(
                "group_id",
                &format!("after the operand of {SHARDING_GROUP}"),
            )?;
            self.expect(Tok::Equal, "after `group_id`")?;
            match self.tok.tok {
                Tok::Int(_) => {
                    self.bump()?;
                }
                _ => return self.err("expected the group's number after `group_id=`"),
            }
            if self.is(&Tok::LBrace) {
                self.op_attrs()?;
            }
            self.expect(Tok::Colon, &format!("before the type of {SHARDING_GROUP}"))?;
            self.tensor_type(&context)?;
        }
        Ok(())
    }

    pub fn operand(&mut self, f: &FuncState) -> PResult<Use> {
        let Tok::Value { name, index } = self.tok.tok else {
            return self.err(format!("expected a value (%name), found {}", self.tok.tok));
        };
        let offset = self.tok.start;
        let written = match index {
            Some(i) => format!("%{name}#{i}"),
            None => format!("%{name}"),
        };
        let Some(binding) = f.lookup(name) else {
            return self.err(format!(
                "use of undefined value {written}; define it before this op (a value is visible after its definition, also inside nested regions, but not outside the region that defines it)"
            ));
        };
        let Some(&id) = binding.values.get(index.unwrap_or(0)) else {
            return self.err(format!(
                "%{name} has {} result(s), so {written} does not exist",
                binding.values.len()
            ));
        };
        self.bump()?;
        Ok(Use {
            id,
            offset,
            name: written,
        })
    }

    /// `%a, %b, ...` (at least one).
    pub fn operand_list(&mut self, f: &FuncState) -> PResult<Vec<Use>> {
        let mut out = vec![self.operand(f)?];
        while self.eat(Tok::Comma)? {
            out.push(self.operand(f)?);
        }
        Ok(out)
    }

    /// `(%a, %b)` (possibly empty).
    pub fn operand_parens(&mut self, f: &FuncState) -> PResult<Vec<Use>> {
        self.expect(Tok::LParen, "to open the operand list")?;
        if self.eat(Tok::RParen)? {
            return Ok(Vec::new());
        }
        let out = self.operand_list(f)?;
        self.expect(Tok::RParen, "after the operands")?;
        Ok(out)
    }

    /// `(%a: t loc(...), ...)`: block arguments as name, offset and type.
    pub fn block_args(&mut self) -> PResult<Vec<BlockArg<'a>>> {
        self.expect(Tok::LParen, "to open the block arguments")?;
        let mut out = Vec::new();
        if self.eat(Tok::RParen)? {
            return Ok(out);
        }
        loop {
            let offset = self.tok.start;
            let Tok::Value { name, index: None } = self.tok.tok else {
                return self.err(format!(
                    "expected a block argument (%name: type), found {}",
                    self.tok.tok
                ));
            };
            self.bump()?;
            self.expect(Tok::Colon, &format!("after the block argument %{name}"))?;
            let ty = self.tensor_type(&format!("for the block argument %{name}"))?;
            let complex = self.complex.last() == Some(&true);
            let narrow = self.narrow.last().copied().flatten().map(|(f, _)| f);
            self.skip_loc()?;
            out.push((name, offset, ty, complex, narrow));
            if self.eat(Tok::Comma)? {
                continue;
            }
            self.expect(Tok::RParen, "after the block arguments")?;
            return Ok(out);
        }
    }

    /// A region's body after its `{` (and its block label, if any), through the closing
    /// `}`: opens a block with `args`, reads its ops and its `stablehlo.return`.
    pub fn region_body(&mut self, f: &mut FuncState, args: Vec<BlockArg<'a>>) -> PResult<BlockId> {
        if self.region_depth >= MAX_REGION_DEPTH {
            return self.err(format!("regions are nested deeper than {MAX_REGION_DEPTH}"));
        }
        self.region_depth += 1;
        let types: Vec<TensorType> = args.iter().map(|a| a.2.clone()).collect();
        let ids = f.b.begin_block(&types);
        f.scopes.push(HashMap::new());
        for ((name, offset, _, complex, narrow), id) in args.into_iter().zip(ids) {
            if complex {
                f.complex.insert(id);
            }
            if let Some(format) = narrow {
                f.narrow.insert(id, format);
            }
            self.define(f, name, vec![id], offset)?;
        }
        let (returned, _) = self.block_ops(f, Terminator::Region)?;
        self.expect(Tok::RBrace, "after stablehlo.return to close the region")?;
        f.scopes.pop();
        self.region_depth -= 1;
        let ids: Vec<ValueId> = returned.iter().map(|u| u.id).collect();
        Ok(f.b.end_block(&ids))
    }

    /// `({ ^bb0(...): ... }, { ... })`: the regions of an op in generic form.
    fn generic_regions(&mut self, f: &mut FuncState) -> PResult<Vec<BlockId>> {
        self.expect(Tok::LParen, "to open the op's regions")?;
        let mut out = Vec::new();
        loop {
            self.expect(Tok::LBrace, "to open a region")?;
            let mut args = Vec::new();
            if let Tok::Caret(label) = self.tok.tok {
                self.bump()?;
                if self.is(&Tok::LParen) {
                    args = self.block_args()?;
                }
                self.expect(Tok::Colon, &format!("after the block label ^{label}"))?;
            }
            out.push(self.region_body(f, args)?);
            if self.eat(Tok::Comma)? {
                continue;
            }
            self.expect(Tok::RParen, "to close the op's regions")?;
            return Ok(out);
        }
    }

    /// Reads ops up to and including the block's terminator; gives the returned values
    /// and the terminator's offset.
    fn block_ops(&mut self, f: &mut FuncState, term: Terminator) -> PResult<(Vec<Use>, usize)> {
        loop {
            let (is_func_ret, is_region_ret) = match &self.tok.tok {
                Tok::Ident("return" | "func.return") => (true, false),
                Tok::Str(s) if s == "func.return" => (true, false),
                Tok::Ident("stablehlo.return" | "sdy.return") => (false, true),
                Tok::Str(s) if s == "stablehlo.return" || s == "sdy.return" => (false, true),
                Tok::RBrace | Tok::Eof => {
                    let want = if term == Terminator::Func {
                        "`return`"
                    } else {
                        "`stablehlo.return`"
                    };
                    return self.err(format!(
                        "expected an op or {want} to end the block, found {}",
                        self.tok.tok
                    ));
                }
                _ => (false, false),
            };
            // JAX ends the comparator functions it writes for `ApproxTopK` with
            // `stablehlo.return`: read as the function's return.
            let stablehlo_return = matches!(&self.tok.tok, Tok::Ident("stablehlo.return"))
                || matches!(&self.tok.tok, Tok::Str(s) if s == "stablehlo.return");
            if is_func_ret || is_region_ret {
                if (term == Terminator::Func) != is_func_ret
                    && !(term == Terminator::Func && stablehlo_return)
                {
                    let (want, got) = if term == Terminator::Func {
                        ("`return`", "stablehlo.return ends regions")
                    } else {
                        ("`stablehlo.return`", "`return` ends function bodies")
                    };
                    return self.err(format!("expected {want} here; {got}"));
                }
                return self.terminator(f);
            }
            self.op(f)?;
        }
    }

    /// `return %a, %b : t, u` or `"func.return"(%a) : (t) -> ()` (and the stablehlo forms).
    fn terminator(&mut self, f: &FuncState) -> PResult<(Vec<Use>, usize)> {
        let start = self.bump()?;
        let generic = matches!(start.tok, Tok::Str(_));
        let (uses, types) = if generic {
            let uses = self.operand_parens(f)?;
            if self.is(&Tok::LBrace) {
                self.dict_entries()?;
            }
            self.expect(Tok::Colon, "before the type of the return")?;
            let (ins, outs) = self.function_type("(the return's type)")?;
            if !outs.is_empty() {
                return self.err_at(
                    start.start,
                    "a return has no results: its type is `(...) -> ()`",
                );
            }
            (uses, ins)
        } else if matches!(self.tok.tok, Tok::Value { .. }) {
            let uses = self.operand_list(f)?;
            self.expect(Tok::Colon, "before the types of the returned values")?;
            let mut types = vec![self.tensor_type("of a returned value")?];
            while self.eat(Tok::Comma)? {
                types.push(self.tensor_type("of a returned value")?);
            }
            (uses, types)
        } else {
            (Vec::new(), Vec::new())
        };
        self.check_operand_types(f, &uses, &types, "the return", start.start)?;
        self.skip_loc()?;
        Ok((uses, start.start))
    }

    /// Checks that the stated operand types are the operands' types.
    fn check_operand_types(
        &self,
        f: &FuncState,
        uses: &[Use],
        types: &[TensorType],
        what: &str,
        offset: usize,
    ) -> PResult<()> {
        if uses.len() != types.len() {
            return self.err_at(offset, format!("the type signature of {what} lists {} operand type(s) but it has {} operand(s)", types.len(), uses.len()));
        }
        for (u, t) in uses.iter().zip(types) {
            let actual = f.b.ty(u.id);
            if actual != t {
                return self.err_at(u.offset, format!("{} has type {actual}, but the type signature of {what} says {t}; fix the signature or pass a value of that type", u.name));
            }
        }
        Ok(())
    }

    // ----- ops -----

    /// `%a, %b:2 =`: the names an op defines (none if the op is not preceded by any).
    fn result_groups(&mut self, f: &FuncState) -> PResult<Vec<ResultGroup<'a>>> {
        let mut groups = Vec::new();
        while let Tok::Value { name, index } = self.tok.tok {
            let offset = self.tok.start;
            if index.is_some() {
                return self.err(format!(
                    "a result name cannot have a result number: write %{name} or %{name}:N"
                ));
            }
            if let Some(prev) = f.lookup(name) {
                let line = super::lexer::position(self.src, prev.offset).line;
                return self.err(format!(
                    "value %{name} is already defined (line {line}); give it another name"
                ));
            }
            self.bump()?;
            let count = if self.eat(Tok::Colon)? {
                let at = self.tok.start;
                let n = self.usize_lit("the number of results")?;
                if n == 0 {
                    return self.err_at(at, "a result group names at least one result");
                }
                n
            } else {
                1
            };
            groups.push(ResultGroup {
                name,
                count,
                offset,
            });
            if !self.eat(Tok::Comma)? {
                break;
            }
        }
        if !groups.is_empty() {
            self.expect(Tok::Equal, "after the result names")?;
        }
        Ok(groups)
    }

    fn lookup_op(&self, name: &str, offset: usize) -> PResult<&'static OpSyntax> {
        if let Some(s) = ops::lookup(name) {
            return Ok(s);
        }
        if matches!(name, "return" | "func.return" | "stablehlo.return") {
            return self.err_at(
                offset,
                format!(
                    "`{name}` ends a block and defines no values; remove the result names before it"
                ),
            );
        }
        self.err_at(offset, format!("unknown op `{name}`; {}", ops::SUPPORTED))
    }

    /// One op with its result names.
    fn op(&mut self, f: &mut FuncState) -> PResult<()> {
        let groups = self.result_groups(f)?;
        let name_offset = self.tok.start;
        let mark = self.complex.len();
        let narrow_mark = self.narrow.len();
        let first_op = f.b.func().ops.len();
        let part = match &self.tok.tok {
            Tok::Str(n) if super::complex::PARTS.contains(&n.as_str()) => Some((n.clone(), true)),
            Tok::Ident(n) if super::complex::PARTS.contains(n) => Some((n.to_string(), false)),
            _ => None,
        };
        if let Some((name, generic)) = part {
            self.bump()?;
            let value = super::complex::parse_part(self, f, &name, name_offset, generic)?;
            self.refuse_narrow(narrow_mark, name_offset, &name)?;
            self.skip_loc()?;
            return self.bind_results(f, &groups, &name, vec![value]);
        }
        let top_k = match &self.tok.tok {
            Tok::Str(n) if n == "chlo.top_k" => Some(true),
            Tok::Ident("chlo.top_k") => Some(false),
            _ => None,
        };
        if let Some(generic) = top_k {
            self.bump()?;
            let values = chlo::top_k(self, f, "chlo.top_k", name_offset, generic)?;
            self.refuse_complex(mark, name_offset, "chlo.top_k")?;
            self.refuse_narrow(narrow_mark, name_offset, "chlo.top_k")?;
            self.skip_loc()?;
            return self.bind_results(f, &groups, "chlo.top_k", values);
        }
        let reduce_precision = match &self.tok.tok {
            Tok::Str(n) if n == "stablehlo.reduce_precision" => Some(true),
            Tok::Ident("stablehlo.reduce_precision") => Some(false),
            _ => None,
        };
        if let Some(generic) = reduce_precision {
            self.bump()?;
            let name = "stablehlo.reduce_precision";
            let values = chlo::reduce_precision(self, f, name, name_offset, generic)?;
            self.refuse_complex(mark, name_offset, name)?;
            self.refuse_narrow(narrow_mark, name_offset, name)?;
            self.skip_loc()?;
            return self.bind_results(f, &groups, name, values);
        }
        let sharding_group = match &self.tok.tok {
            Tok::Str(n) if n == SHARDING_GROUP => Some(true),
            Tok::Ident(SHARDING_GROUP) => Some(false),
            _ => None,
        };
        if let Some(generic) = sharding_group {
            self.bump()?;
            self.sharding_group(f, generic)?;
            self.skip_loc()?;
            return self.bind_results(f, &groups, SHARDING_GROUP, Vec::new());
        }
        let custom_call = match &self.tok.tok {
            Tok::Str(n) if n == CUSTOM_CALL => Some(true),
            Tok::Ident(CUSTOM_CALL) => Some(false),
            _ => None,
        };
        if let Some(generic) = custom_call {
            self.bump()?;
            let values = super::custom_call::parse(self, f, CUSTOM_CALL, name_offset, generic)?;
            self.refuse_complex(mark, name_offset, CUSTOM_CALL)?;
            self.refuse_narrow(narrow_mark, name_offset, CUSTOM_CALL)?;
            self.skip_loc()?;
            return self.bind_results(f, &groups, CUSTOM_CALL, values);
        }
        let (syntax, parsed) = match self.tok.tok.clone() {
            Tok::Str(name) if chlo::is_chlo(&name) => {
                self.bump()?;
                let before = f.b.func().ops.len();
                let parsed = chlo::parse(self, f, &name, name_offset, true)?;
                // A decomposition that is one op (`square`, `tan`) is read on complex
                // values as that op is; others compute on floats.
                if f.b.func().ops.len() != before {
                    self.refuse_complex(mark, name_offset, &name)?;
                }
                (self.lookup_op(&parsed.kind.name(), name_offset)?, parsed)
            }
            Tok::Ident(name) if chlo::is_chlo(name) => {
                self.bump()?;
                let before = f.b.func().ops.len();
                let parsed = chlo::parse(self, f, name, name_offset, false)?;
                // A decomposition that is one op (`square`, `tan`) is read on complex
                // values as that op is; others compute on floats.
                if f.b.func().ops.len() != before {
                    self.refuse_complex(mark, name_offset, name)?;
                }
                (self.lookup_op(&parsed.kind.name(), name_offset)?, parsed)
            }
            Tok::Str(name) => {
                let syntax = self.lookup_op(&name, name_offset)?;
                self.bump()?;
                (syntax, self.generic_op(f, &name, name_offset, syntax)?)
            }
            Tok::Ident(name) => {
                let syntax = self.lookup_op(name, name_offset)?;
                self.bump()?;
                (syntax, (syntax.parse)(self, f, name)?)
            }
            other => return self.err(format!("expected an op name, found {other}")),
        };
        let loc = self.loc()?;
        let read = self.complex[mark..].to_vec();
        if super::complex::involved(f, &parsed, &read) {
            let (parsed, complex) = super::complex::lower(self, f, parsed, name_offset, &read)?;
            // A region rebuilt on the parts gave its ops' ids out again: the locations
            // read for them name other ops now.
            let name = f.name.clone();
            self.op_locs
                .retain(|(func, i, _)| *func != name || *i < first_op);
            let syntax = self.lookup_op(&parsed.kind.name(), name_offset)?;
            self.finish_op(f, &groups, syntax, name_offset, parsed)?;
            let op = f.b.func().ops.len() - 1;
            let results = f.b.func().ops[op].results.clone();
            for (r, c) in results.into_iter().zip(complex) {
                if c {
                    f.complex.insert(r);
                }
            }
        } else if narrow::involved(f, &parsed, &self.narrow[narrow_mark..]) {
            self.narrow_op(f, &groups, syntax, name_offset, parsed, narrow_mark)?;
        } else {
            self.finish_op(f, &groups, syntax, name_offset, parsed)?;
        }
        if let (Some(loc), Some(last)) = (loc, f.b.func().ops.len().checked_sub(1)) {
            self.op_locs.push((f.name.clone(), last, loc));
        }
        Ok(())
    }

    /// Adds an op on values of a narrow type (see `narrow.rs`): it computes on the values
    /// that hold them, and each result its text types as narrow is brought into that type,
    /// unless the op only moves values.
    fn narrow_op(
        &mut self,
        f: &mut FuncState,
        groups: &[ResultGroup<'a>],
        syntax: &OpSyntax,
        offset: usize,
        parsed: Parsed,
        mark: usize,
    ) -> PResult<()> {
        let name = parsed.kind.name();
        let narrow_operand = parsed
            .operands
            .iter()
            .find(|u| f.narrow.contains_key(&u.id));
        // The types of the results, from the types the text wrote last.
        let written = &self.narrow[mark..];
        let n = parsed.result_types.len();
        let mut formats: Vec<Option<Narrow>> = written[written.len().saturating_sub(n)..]
            .iter()
            .map(|w| w.map(|(format, _)| format))
            .collect();
        formats.resize(n, None);
        // The narrow type the op reads, or else the one it gives.
        let subject = narrow_operand
            .and_then(|u| f.narrow.get(&u.id))
            .or(formats.iter().flatten().next())
            .copied();
        let computes = narrow::computes(&parsed.kind, subject).map_err(|why| {
            let value = narrow_operand.map_or_else(
                || "a value".to_string(),
                |u| format!("{} ({})", u.name, f.narrow[&u.id].name()),
            );
            self.error_at(offset, format!("{name} of {value} is not read: it {why}"))
        })?;
        // A convert of a float to a 4-bit integer saturates, as to any integer type.
        let from_float = matches!(parsed.kind, OpKind::Convert)
            && parsed
                .operands
                .first()
                .is_some_and(|u| f.b.ty(u.id).dtype.is_float());
        self.finish_op(f, groups, syntax, offset, parsed)?;
        let op = f.b.func().ops.len() - 1;
        let results = f.b.func().ops[op].results.clone();
        let mut values = Vec::with_capacity(n);
        for (r, format) in results.into_iter().zip(formats) {
            let v = match format {
                Some(format) if computes => narrow::narrow(&mut f.b, r, format, from_float)
                    .map_err(|e| self.error_at(offset, e.to_string()))?,
                _ => r,
            };
            if let Some(format) = format {
                f.narrow.insert(v, format);
            }
            values.push(v);
        }
        // The names the text gives the results name the narrowed values.
        let mut rest = values.as_slice();
        for g in groups {
            let (vals, tail) = rest.split_at(g.count.min(rest.len()));
            rest = tail;
            if let Some(binding) = f.scopes.last_mut().and_then(|s| s.get_mut(g.name)) {
                binding.values = vals.to_vec();
            }
        }
        Ok(())
    }

    /// The narrow types of a function's signature, read since `mark` (arguments first).
    fn narrow_signature(&self, mark: usize) -> Vec<Option<Narrow>> {
        self.narrow[mark..]
            .iter()
            .map(|w| w.map(|(format, _)| format))
            .collect()
    }

    /// The values a function's arguments are named by in its body: a public function's
    /// narrow argument, passed in its holding type, is narrowed on entry (its callers may
    /// pass any value of the holding type: an int4 argument is an int8 whose low 4 bits are
    /// the value); a private function's callers pass narrow values already.
    fn narrow_entry(
        &self,
        f: &mut FuncState,
        formats: &[Option<Narrow>],
        offset: usize,
    ) -> PResult<Vec<ValueId>> {
        let public = f.b.func().visibility == Visibility::Public;
        let args = f.b.func().arg_attrs.len();
        let mut out = Vec::with_capacity(args);
        for i in 0..args {
            let arg = f.b.arg(i);
            let value = match formats.get(i).copied().flatten() {
                Some(format) if public => {
                    let v = narrow::narrow(&mut f.b, arg, format, false)
                        .map_err(|e| self.error_at(offset, e.to_string()))?;
                    f.narrow.insert(v, format);
                    v
                }
                Some(format) => {
                    f.narrow.insert(arg, format);
                    arg
                }
                None => arg,
            };
            out.push(value);
        }
        Ok(out)
    }

    /// An error if an op read by its own reader (`chlo.top_k`, `custom_call`, ...) wrote a
    /// narrow type since `mark`.
    fn refuse_narrow(&self, mark: usize, offset: usize, name: &str) -> PResult<()> {
        if let Some((format, _)) = self.narrow[mark..].iter().flatten().next() {
            return self.err_at(
                offset,
                format!("{name} of {} values is not read: shardc holds {} values as {}, brought back into {} where computed, and reads {name} for other types only; convert before it (`x.astype(jnp.float32)`)", format.name(), format.name(), format.held_as(), format.name()),
            );
        }
        Ok(())
    }

    /// An error if an op decomposed as it is read (whose text starts at `offset`) wrote a
    /// complex type since `mark`: those decompositions are of floats.
    fn refuse_complex(&self, mark: usize, offset: usize, name: &str) -> PResult<()> {
        if self.complex[mark..].contains(&true) {
            return self.err_at(
                offset,
                format!("{name} of complex values is not read: shardc holds complex values as pairs of floats, and decomposes {name} for floats only; compute it on the real and imaginary parts (`x.real`, `x.imag`)"),
            );
        }
        Ok(())
    }

    /// `"name"(%a, %b) <{props}> ({regions}) {attrs} : (t, u) -> r`
    fn generic_op(
        &mut self,
        f: &mut FuncState,
        name: &str,
        offset: usize,
        syntax: &OpSyntax,
    ) -> PResult<Parsed> {
        let mut operands = self.operand_parens(f)?;
        if matches!(name, "stablehlo.reduce" | "stablehlo.reduce_window") {
            // Before the region is read (see `complex::real_inits`).
            let n = operands.len() / 2;
            super::complex::real_inits(f, &mut operands, n);
        }
        let mut entries = Vec::new();
        if self.eat(Tok::Less)? {
            entries = self.dict_entries()?;
            self.expect(Tok::Greater, "to close the properties `<{...}>`")?;
        }
        let regions = if self.is(&Tok::LParen) {
            self.generic_regions(f)?
        } else {
            Vec::new()
        };
        if self.is(&Tok::LBrace) {
            for e in self.dict_entries()? {
                if entries.iter().any(|x: &Entry| x.name == e.name) {
                    return self.err_at(
                        e.key_offset,
                        format!("attribute `{}` is given twice", e.key),
                    );
                }
                entries.push(e);
            }
        }
        self.expect(Tok::Colon, &format!("before the type of \"{name}\""))?;
        let sig = self.function_type("(the op's type `(operand types) -> result types`)")?;
        let mut g = GenericAttrs {
            op: name.to_string(),
            offset,
            entries,
            sites: Vec::new(),
        };
        let kind = (syntax.from_props)(self, &mut g)?;
        let attrs = self.op_attrs_from(g.entries)?;
        let mut parsed = Parsed::new(kind, operands, sig).with_attrs(attrs);
        parsed.regions = regions;
        parsed.sites = g.sites;
        Ok(parsed)
    }

    /// Adds a read op to the function: checks its result names and operand types, pushes
    /// it through the builder, attaches its attributes and binds its result names.
    fn finish_op(
        &mut self,
        f: &mut FuncState,
        groups: &[ResultGroup<'a>],
        syntax: &OpSyntax,
        offset: usize,
        p: Parsed,
    ) -> PResult<()> {
        let op_name = p.kind.name();
        let n = p.result_types.len();
        let named = groups.iter().fold(0usize, |n, g| n.saturating_add(g.count));
        if let Some(first) = groups.first()
            && named != n
        {
            return self.err_at(
                    first.offset,
                    format!("the result names define {named} value(s) but {op_name} has {n} result(s) here; write `%{}{} = ...`", first.name, if n == 1 { String::new() } else { format!(":{n}") }),
                );
        }
        if syntax.regions == ops::ANY_REGIONS && p.regions.is_empty() {
            return self.err_at(offset, format!("{op_name} takes one region or more"));
        }
        if syntax.regions != ops::ANY_REGIONS && p.regions.len() != syntax.regions {
            return self.err_at(
                offset,
                format!(
                    "{op_name} takes {} region(s), but {} were given",
                    syntax.regions,
                    p.regions.len()
                ),
            );
        }
        self.check_operand_types(f, &p.operands, &p.operand_types, &op_name, offset)?;
        let at = f.at(&groups.first().map_or_else(
            || "an unnamed value".to_string(),
            |g| format!("%{}", g.name),
        ));
        let mut ids: Vec<ValueId> = p.operands.iter().map(|u| u.id).collect();
        let mut p = p;
        // JAX's `preferred_element_type`: a dot or convolution whose result is declared wider
        // than its operands (bf16 x bf16 -> f32, i8 x i8 -> i32) reads them widened first,
        // which is exact, as XLA computes it.
        if let Some(wide) = preferred_element_type(&p) {
            for id in ids.iter_mut() {
                let ty = f.b.ty(*id).with_dtype(wide);
                let v =
                    f.b.push1_typed(OpKind::Convert, &[*id], ty)
                        .map_err(|e| self.error_at(offset, e.to_string()))?;
                if let Some(op) = f.b.func().defining_op(v) {
                    f.b.op_mut(op).attrs.push((
                        "shardc.from".to_string(),
                        "\"preferred_element_type\"".to_string(),
                    ));
                }
                *id = v;
            }
        }
        // A sort without a dimension sorts along the last (StableHLO's default, -1).
        if let OpKind::Sort { dimension, .. } = &mut p.kind
            && *dimension == usize::MAX
        {
            *dimension = p
                .operand_types
                .first()
                .map_or(0, |t| t.rank().saturating_sub(1));
        }
        // What a loop's or a case's regions read from outside becomes its operands.
        let op =
            f.b.push_region_op(p.kind, &ids, Some(&p.result_types), p.regions)
                .map_err(|e| {
                    let e = match e {
                        IrError::InvalidOp { op, rule, fix, .. } => IrError::InvalidOp {
                            at: at.clone(),
                            op,
                            rule,
                            fix,
                        },
                        other => other,
                    };
                    self.error_at(offset, e.to_string())
                })?;
        let results = f.b.func().op(op).results.clone();
        let result_at = |i: usize| -> String {
            let mut k = i;
            for g in groups {
                if k < g.count {
                    return f.at(&if g.count == 1 {
                        format!("%{}", g.name)
                    } else {
                        format!("%{}#{k}", g.name)
                    });
                }
                k -= g.count;
            }
            at.clone()
        };
        if let Some((s_offset, shardings)) = &p.shardings {
            if shardings.len() != results.len() {
                return self.err_at(
                    *s_offset,
                    format!("{op_name} has {} result(s) but its sdy.sharding lists {}; give one sharding per result", results.len(), shardings.len()),
                );
            }
            for (i, (s, &r)) in shardings.iter().zip(&results).enumerate() {
                let ty = f.b.ty(r).clone();
                self.check_sharding(*s_offset, s, &ty, result_at(i))?;
            }
        }
        for site in &p.sites {
            match site {
                Site::Sharding {
                    offset,
                    result,
                    sharding,
                } => {
                    if let Some(&r) = results.get(*result) {
                        let ty = f.b.ty(r).clone();
                        self.check_sharding(*offset, sharding, &ty, result_at(*result))?;
                    }
                }
                Site::Call { offset, callee } => {
                    let args: Vec<TensorType> = ids.iter().map(|&v| f.b.ty(v).clone()).collect();
                    let rs: Vec<TensorType> = results.iter().map(|&v| f.b.ty(v).clone()).collect();
                    self.check_call(*offset, callee, args, rs, at.clone())?;
                }
            }
        }
        let o = f.b.op_mut(op);
        o.shardings = p.shardings.map(|(_, s)| s);
        o.attrs = p.attrs;
        let mut i = 0;
        for g in groups {
            let vals = results
                .get(i..i + g.count)
                .map(<[ValueId]>::to_vec)
                .unwrap_or_default();
            self.define(f, g.name, vals, g.offset)?;
            i += g.count;
        }
        Ok(())
    }

    /// Names the values an op (or a decomposition) gave with its result names.
    fn bind_results(
        &mut self,
        f: &mut FuncState,
        groups: &[ResultGroup<'a>],
        op_name: &str,
        values: Vec<ValueId>,
    ) -> PResult<()> {
        let named = groups.iter().fold(0usize, |n, g| n.saturating_add(g.count));
        if let Some(first) = groups.first()
            && named != values.len()
        {
            return self.err_at(
                first.offset,
                format!(
                    "the result names define {named} value(s) but {op_name} has {} result(s)",
                    values.len()
                ),
            );
        }
        let mut i = 0;
        for g in groups {
            let vals = values
                .get(i..i + g.count)
                .map(<[ValueId]>::to_vec)
                .unwrap_or_default();
            self.define(f, g.name, vals, g.offset)?;
            i += g.count;
        }
        Ok(())
    }

    // ----- checks that need the module -----

    fn check_sharding(
        &mut self,
        offset: usize,
        s: &Sharding,
        ty: &TensorType,
        at: String,
    ) -> PResult<()> {
        if !self.verify {
            return Ok(());
        }
        if self.module.mesh(&s.mesh).is_none() {
            self.deferred.push(Deferred::Sharding {
                offset,
                sharding: s.clone(),
                ty: ty.clone(),
                at,
            });
            return Ok(());
        }
        verify::check_sharding_with(&self.module, s, ty, &at, self.uneven)
            .map_err(|e| self.error_at(offset, e.to_string()))
    }

    fn check_call(
        &mut self,
        offset: usize,
        callee: &str,
        args: Vec<TensorType>,
        results: Vec<TensorType>,
        at: String,
    ) -> PResult<()> {
        if !self.verify {
            return Ok(());
        }
        if self.module.function(callee).is_none() {
            self.deferred.push(Deferred::Call {
                offset,
                callee: callee.to_string(),
                args,
                results,
                at,
            });
            return Ok(());
        }
        self.call_matches(offset, callee, &args, &results, &at)
    }

    fn call_matches(
        &self,
        offset: usize,
        callee: &str,
        args: &[TensorType],
        results: &[TensorType],
        at: &str,
    ) -> PResult<()> {
        let Some(g) = self.module.function(callee) else {
            let e = IrError::UnknownFunction {
                at: at.to_string(),
                callee: callee.to_string(),
            };
            return self.err_at(offset, e.to_string());
        };
        if g.arg_types() != args || g.result_types() != results {
            let show = |ts: &[TensorType]| super::format::join(ts);
            let e = IrError::CallMismatch {
                at: at.to_string(),
                callee: callee.to_string(),
                detail: format!(
                    "type ({}) -> ({}), but @{callee} has type ({}) -> ({}); match the callee's signature",
                    show(args),
                    show(results),
                    show(&g.arg_types()),
                    show(&g.result_types())
                ),
            };
            return self.err_at(offset, e.to_string());
        }
        Ok(())
    }

    fn run_deferred(&mut self) -> PResult<()> {
        for d in std::mem::take(&mut self.deferred) {
            match d {
                Deferred::Sharding {
                    offset,
                    sharding,
                    ty,
                    at,
                } => {
                    verify::check_sharding_with(&self.module, &sharding, &ty, &at, self.uneven)
                        .map_err(|e| self.error_at(offset, e.to_string()))?;
                }
                Deferred::Call {
                    offset,
                    callee,
                    args,
                    results,
                    at,
                } => self.call_matches(offset, &callee, &args, &results, &at)?,
            }
        }
        Ok(())
    }
}

/// The wider element type a dot or convolution's declared result asks its operands to be
/// read in (JAX's `preferred_element_type`), when every operand widens to it exactly: a
/// float to a wider float, an integer to a wider integer that holds all its values.
fn preferred_element_type(p: &Parsed) -> Option<DType> {
    if !matches!(p.kind, OpKind::DotGeneral(_) | OpKind::Convolution(_)) {
        return None;
    }
    let [result] = p.result_types.as_slice() else {
        return None;
    };
    let wide = result.dtype;
    let exact = |from: DType| {
        if from == wide {
            return true;
        }
        let (fb, wb) = (from.bit_width(), wide.bit_width());
        if from.is_float() && wide.is_float() {
            // bf16 and f16 fit f32 and f64; f32 fits f64.
            return wb > fb;
        }
        if from.is_bool() || wide.is_bool() || from.is_float() || wide.is_float() {
            return false;
        }
        // A signed integer never fits an unsigned one; otherwise wider holds narrower.
        (!wide.is_unsigned() || from.is_unsigned()) && wb > fb
    };
    let differs = p.operand_types.iter().any(|t| t.dtype != wide);
    (differs && p.operand_types.iter().all(|t| exact(t.dtype))).then_some(wide)
}
