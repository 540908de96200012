//! `#[rank]`: a rank kernel, checked for the block-collective rules, in
//! three steps: [`ast`] parses the signature, [`valid`] checks the body
//! against the rules, [`expand`] emits the entry point and the handle.
//!
//! The rules are mostly enforced by types (`Rank::threads` borrows the rank
//! mutably and takes an `Fn` closure); the checker finds the same mistakes
//! first and reports them with the rule and the fix, and also catches what
//! types cannot: raw per-thread intrinsics in uniform code.

mod ast;
mod expand;
mod paths;
mod valid;

use proc_macro2::TokenStream;
use syn::spanned::Spanned;

pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new(attr.span(), "#[rank] takes no arguments"));
    }
    let k = ast::parse(item)?;
    let errors = valid::check(&k.rank, &k.func.block);
    Ok(expand::expand(&k, errors))
}
