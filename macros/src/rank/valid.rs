//! The block-collective rules of a rank body: walks it, tracking whether
//! code is uniform or inside a per-thread region and which names refer to
//! the rank handle, and reports each violation with the rule and the fix.

use super::ast::last_segment;
use super::paths::{may_be_intrinsic, mentions, mentions_call, pat_names, rank_path_method};
use proc_macro2::Span;
use quote::{quote, ToTokens};
use std::collections::{HashMap, HashSet};
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{Expr, FnArg, Type};

/// Methods of `Rank` whose closure arguments are per-thread regions.
const REGION_METHODS: &[&str] = &["threads", "per_thread", "reduce", "scan", "single"];
/// Intrinsics that exist per thread; a rank kernel gets them from the `Thread`.
const THREAD_INTRINSICS: &[(&str, &str)] = &[
    (
        "thread_idx",
        "use `t.index()` inside `rank.threads(|t| ...)`",
    ),
    ("block_idx", "use `rank.id()`"),
    ("block_dim", "use `rank.threads_per_rank()`"),
    ("grid_dim", "use `rank.size()`"),
    (
        "sync_threads",
        "use `rank.sync_threads()`, a block-collective call in uniform code",
    ),
];
/// Non-idempotent operations: in uniform code every thread would run them.
const PER_THREAD_EFFECTS: &[&str] = &["fetch_add", "swap", "compare_exchange"];

/// The rule violations in `block`, whose rank handle is `rank`.
pub fn check(rank: &syn::Ident, block: &syn::Block) -> Vec<syn::Error> {
    let mut checker = Checker::new(rank.to_string());
    checker.visit_block(block);
    checker.errors
}

/// Walks a rank body, tracking whether code is uniform or inside a
/// per-thread region, and which names refer to the rank handle.
struct Checker {
    /// Names bound to the rank handle (its parameter and aliases of it).
    rank_names: HashSet<String>,
    /// Names imported inside the body for per-thread intrinsics: alias -> intrinsic.
    intrinsic_aliases: HashMap<String, String>,
    /// Per-thread regions we are in: the names declared in each.
    regions: Vec<HashSet<String>>,
    /// Closures of uniform code we are in: their parameter names.
    closures: Vec<HashSet<String>>,
    errors: Vec<syn::Error>,
}

impl Checker {
    fn new(rank: String) -> Self {
        Checker {
            rank_names: HashSet::from([rank]),
            intrinsic_aliases: HashMap::new(),
            regions: Vec::new(),
            closures: Vec::new(),
            errors: Vec::new(),
        }
    }

    fn in_region(&self) -> bool {
        !self.regions.is_empty()
    }

    /// Whether `name` is the rank handle here (not shadowed by a local of a
    /// region or a closure parameter).
    fn is_rank(&self, name: &str) -> bool {
        self.rank_names.contains(name)
            && !self
                .regions
                .iter()
                .chain(&self.closures)
                .any(|scope| scope.contains(name))
    }

    fn error(&mut self, span: Span, msg: String) {
        self.errors.push(syn::Error::new(span, msg));
    }

    fn rank_in_region(&mut self, span: Span, what: &str) {
        self.error(
            span,
            format!(
                "{what} inside a per-thread region\n\
                 rule: block-collective operations must be reached by every thread of the rank with the same arguments; \
                 a per-thread region (`rank.threads(|t| ...)`, `reduce`, `scan`, `per_thread`, `single`) runs for each thread on its own\n\
                 fix: call it in uniform code, before or after the region; to use a uniform value inside, copy it into a local first (`let id = rank.id();`)"
            ),
        );
    }

    fn rank_captured(&mut self, span: Span, name: &str) {
        self.error(
            span,
            format!(
                "the rank handle `{name}` is captured by a closure\n\
                 rule: a closure may be run per thread, and a per-thread caller must not reach block-collective operations\n\
                 fix: pass the handle as a parameter (`|rank: &mut Rank| ...`) or call the collective directly"
            ),
        );
    }

    fn check_intrinsic(&mut self, name: &str, span: Span) {
        let intrinsic = self
            .intrinsic_aliases
            .get(name)
            .cloned()
            .unwrap_or_else(|| name.to_string());
        if let Some((_, fix)) = THREAD_INTRINSICS.iter().find(|(n, _)| *n == intrinsic) {
            self.error(
                span,
                format!(
                    "raw intrinsic `{intrinsic}` in a rank kernel\n\
                     rule: a rank is a whole block; code outside per-thread regions runs identically on every thread, and thread-level intrinsics would make it diverge\n\
                     fix: {fix}"
                ),
            );
        } else if PER_THREAD_EFFECTS.contains(&intrinsic.as_str()) && !self.in_region() {
            self.error(
                span,
                format!(
                    "`{intrinsic}` in uniform code\n\
                     rule: uniform code runs on every thread of the rank, so a non-idempotent operation would happen once per thread\n\
                     fix: run it on one thread and share the result with `rank.single(|t| ...)`, or per thread in `rank.threads(|t| ...)`"
                ),
            );
        }
    }

    /// Whether `expr` is the rank handle itself, possibly re-borrowed
    /// (`rank`, `&mut *rank`, `(rank)`), rather than a value computed from it.
    fn is_rank_alias(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| self.is_rank(&i.to_string())),
            Expr::Reference(r) => self.is_rank_alias(&r.expr),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.is_rank_alias(&u.expr),
            Expr::Paren(p) => self.is_rank_alias(&p.expr),
            _ => false,
        }
    }

    fn visit_region_closure(&mut self, closure: &syn::ExprClosure) {
        let mut scope = HashSet::new();
        for input in &closure.inputs {
            pat_names(input, &mut scope);
        }
        self.regions.push(scope);
        self.visit_expr(&closure.body);
        self.regions.pop();
    }

    /// The variable an assignment target writes, unless it writes through a
    /// pointer dereference.
    fn assigned_root(expr: &Expr) -> Option<&syn::Ident> {
        match expr {
            Expr::Path(p) => p.path.get_ident(),
            Expr::Field(f) => Self::assigned_root(&f.base),
            Expr::Index(i) => Self::assigned_root(&i.expr),
            Expr::Paren(p) => Self::assigned_root(&p.expr),
            _ => None,
        }
    }

    fn check_assignment(&mut self, target: &Expr) {
        if !self.in_region() {
            return;
        }
        if let Some(root) = Self::assigned_root(target) {
            let name = root.to_string();
            if !self.regions.iter().any(|scope| scope.contains(&name)) {
                self.error(
                    target.span(),
                    format!(
                        "per-thread value escaping into uniform code: `{name}` belongs to the uniform code, and this per-thread region assigns it\n\
                         rule: uniform values are the same on every thread; a value computed per thread reaches uniform code only through a block-collective reduction\n\
                         fix: combine per-thread values with `rank.reduce(|t| ..., Sum)` or `rank.scan`, or keep them in a `PerThread` (`let v = rank.per_thread(|t| ...)`, `v.set(t, x)`)"
                    ),
                );
            }
        }
    }
}

impl<'ast> Visit<'ast> for Checker {
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let on_rank = matches!(&*m.receiver, Expr::Path(p) if p.path.get_ident().is_some_and(|i| self.is_rank(&i.to_string())));
        if on_rank && self.in_region() {
            let receiver = &m.receiver;
            self.rank_in_region(
                m.span(),
                &format!(
                    "block-collective call `{}.{}(..)`",
                    quote!(#receiver),
                    m.method
                ),
            );
            return;
        }
        if on_rank && REGION_METHODS.contains(&m.method.to_string().as_str()) {
            for arg in &m.args {
                match arg {
                    Expr::Closure(c) => self.visit_region_closure(c),
                    other => self.visit_expr(other),
                }
            }
            return;
        }
        visit::visit_expr_method_call(self, m);
    }

    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if let Some(ident) = p.path.get_ident() {
            let name = ident.to_string();
            if self.is_rank(&name) {
                if self.in_region() {
                    self.rank_in_region(ident.span(), &format!("the rank handle `{name}`"));
                } else if !self.closures.is_empty() {
                    self.rank_captured(ident.span(), &name);
                }
            }
        }
        visit::visit_expr_path(self, p);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let Expr::Path(p) = &*c.func {
            if let Some(method) = rank_path_method(&p.path) {
                // `Rank::threads(rank, |t| ...)`: the closures are regions,
                // as in method form.
                if REGION_METHODS.contains(&method.as_str()) && !self.in_region() {
                    for arg in &c.args {
                        match arg {
                            Expr::Closure(cl) => self.visit_region_closure(cl),
                            other => self.visit_expr(other),
                        }
                    }
                    return;
                }
            } else if may_be_intrinsic(&p.path) {
                if let Some(last) = p.path.segments.last() {
                    self.check_intrinsic(&last.ident.to_string(), c.func.span());
                }
            }
        }
        visit::visit_expr_call(self, c);
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        if self.in_region() {
            // A closure inside a region is part of the region.
            let mut scope = HashSet::new();
            for input in &c.inputs {
                pat_names(input, &mut scope);
            }
            self.regions.push(scope);
            self.visit_expr(&c.body);
            self.regions.pop();
            return;
        }
        let mut scope = HashSet::new();
        for input in &c.inputs {
            pat_names(input, &mut scope);
        }
        self.closures.push(scope);
        self.visit_expr(&c.body);
        self.closures.pop();
    }

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        self.check_assignment(&a.left);
        visit::visit_expr_assign(self, a);
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        use syn::BinOp::*;
        if matches!(
            b.op,
            AddAssign(_)
                | SubAssign(_)
                | MulAssign(_)
                | DivAssign(_)
                | RemAssign(_)
                | BitXorAssign(_)
                | BitAndAssign(_)
                | BitOrAssign(_)
                | ShlAssign(_)
                | ShrAssign(_)
        ) {
            self.check_assignment(&b.left);
        }
        visit::visit_expr_binary(self, b);
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        for a in &l.attrs {
            self.visit_attribute(a);
        }
        if let Some(init) = &l.init {
            self.visit_expr(&init.expr);
            if let Some((_, diverge)) = &init.diverge {
                self.visit_expr(diverge);
            }
        }
        let mut names = HashSet::new();
        pat_names(&l.pat, &mut names);
        if let Some(scope) = self.regions.last_mut() {
            scope.extend(names);
        } else if let Some(init) = &l.init {
            // `let r = &mut *rank;` makes `r` another name of the handle.
            if self.is_rank_alias(&init.expr) {
                self.rank_names.extend(names);
            }
        }
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let live: HashSet<String> = self
            .rank_names
            .iter()
            .filter(|n| self.is_rank(n))
            .cloned()
            .collect();
        if self.in_region() {
            if let Some(span) = mentions(m.tokens.clone(), &live) {
                self.rank_in_region(span, "the rank handle, passed to a macro,");
            }
        }
        let intrinsics: HashSet<String> = THREAD_INTRINSICS
            .iter()
            .map(|(n, _)| n.to_string())
            .chain(self.intrinsic_aliases.keys().cloned())
            .collect();
        if let Some(span) = mentions_call(m.tokens.clone(), &intrinsics) {
            let name = span.source_text().unwrap_or_default();
            self.check_intrinsic(&name, span);
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if let Some(seg) = p.segments.iter().find(|s| s.ident == "nvptx") {
            self.error(
                seg.ident.span(),
                "GPU-only intrinsics (`core::arch::nvptx`) in a rank kernel\n\
                 rule: the emulator runs the kernel compiled for the host, where these do not exist, so none of its checks would see them\n\
                 fix: use the intrinsics of `dcuda_device::arch`, which both targets compile"
                    .into(),
            );
        }
        visit::visit_path(self, p);
    }

    fn visit_attribute(&mut self, a: &'ast syn::Attribute) {
        let cfg = a.path().is_ident("cfg") || a.path().is_ident("cfg_attr");
        if cfg && a.meta.to_token_stream().to_string().contains("target_arch") {
            self.error(
                a.span(),
                "code compiled for one target only, in a rank kernel\n\
                 rule: the emulator checks the kernel as the host compiles it; code that only the GPU build contains escapes every check\n\
                 fix: write it once, with the intrinsics of `dcuda_device::arch`, which both targets compile"
                    .into(),
            );
        }
        visit::visit_attribute(self, a);
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        fn walk(tree: &syn::UseTree, checker: &mut Checker, under_arch: bool) {
            match tree {
                syn::UseTree::Path(p) => walk(&p.tree, checker, under_arch || p.ident == "arch"),
                syn::UseTree::Name(n) => {
                    let name = n.ident.to_string();
                    if THREAD_INTRINSICS.iter().any(|(i, _)| *i == name) || PER_THREAD_EFFECTS.contains(&name.as_str()) {
                        checker.intrinsic_aliases.insert(name.clone(), name);
                    }
                }
                syn::UseTree::Rename(r) => {
                    let name = r.ident.to_string();
                    if THREAD_INTRINSICS.iter().any(|(i, _)| *i == name) || PER_THREAD_EFFECTS.contains(&name.as_str()) {
                        checker.intrinsic_aliases.insert(r.rename.to_string(), name);
                    }
                }
                syn::UseTree::Glob(g) if under_arch => checker.error(
                    g.span(),
                    "glob import of `arch` in a rank kernel\nrule: it brings thread-level intrinsics into uniform code\nfix: import the items you need by name".into(),
                ),
                syn::UseTree::Glob(_) => {}
                syn::UseTree::Group(g) => g.items.iter().for_each(|t| walk(t, checker, under_arch)),
            }
        }
        walk(&u.tree, self, false);
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        // A helper defined in the body: its own `&mut Rank` parameters are
        // handles; the outer ones are out of scope.
        let mut inner = Checker::new(String::new());
        inner.rank_names.clear();
        for input in &f.sig.inputs {
            if let FnArg::Typed(pt) = input {
                if matches!(&*pt.ty, Type::Reference(r) if last_segment(&r.elem).as_deref() == Some("Rank"))
                {
                    pat_names(&pt.pat, &mut inner.rank_names);
                }
            }
        }
        inner.intrinsic_aliases = self.intrinsic_aliases.clone();
        inner.visit_block(&f.block);
        self.errors.append(&mut inner.errors);
    }
}
