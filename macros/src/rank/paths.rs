//! What the checker asks of names, paths and macro tokens: the names a
//! pattern binds, whether tokens mention a name or call it, and whether a
//! called path can be an intrinsic or is a `Rank` method in path form.

use proc_macro2::{Span, TokenStream, TokenTree};
use std::collections::HashSet;
use syn::visit::{self, Visit};
use syn::Pat;

pub fn pat_names(pat: &Pat, out: &mut HashSet<String>) {
    struct Names<'a>(&'a mut HashSet<String>);
    impl<'ast> Visit<'ast> for Names<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.insert(p.ident.to_string());
            visit::visit_pat_ident(self, p);
        }
    }
    Names(out).visit_pat(pat);
}

pub fn mentions(tokens: TokenStream, names: &HashSet<String>) -> Option<Span> {
    tokens.into_iter().find_map(|tt| match tt {
        TokenTree::Ident(id) if names.contains(&id.to_string()) => Some(id.span()),
        TokenTree::Group(g) => mentions(g.stream(), names),
        _ => None,
    })
}

/// The first call of a function named in `names` among `tokens`: the name
/// followed by parentheses, and not a method (no `.` before it). A local
/// variable of the same name, or `rank.sync_threads()`, is not one.
pub fn mentions_call(tokens: TokenStream, names: &HashSet<String>) -> Option<Span> {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    tokens.iter().enumerate().find_map(|(i, tt)| match tt {
        TokenTree::Ident(id) if names.contains(&id.to_string()) => {
            let called = matches!(tokens.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Parenthesis);
            let method = matches!(i.checked_sub(1).map(|j| &tokens[j]), Some(TokenTree::Punct(p)) if p.as_char() == '.');
            (called && !method).then(|| id.span())
        }
        TokenTree::Group(g) => mentions_call(g.stream(), names),
        _ => None,
    })
}

/// Whether a called path names a free function that may be an intrinsic:
/// a plain name (perhaps imported or aliased) or a path through `arch`;
/// not an associated function such as `Rank::sync_threads`.
pub fn may_be_intrinsic(path: &syn::Path) -> bool {
    path.segments.len() == 1 || path.segments.iter().any(|s| s.ident == "arch")
}

/// `Rank::method` in path form: the method's name.
pub fn rank_path_method(path: &syn::Path) -> Option<String> {
    let n = path.segments.len();
    (n >= 2 && path.segments[n - 2].ident == "Rank").then(|| path.segments[n - 1].ident.to_string())
}
