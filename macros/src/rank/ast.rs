//! The parsed form of a rank kernel: its signature, checked.

use syn::spanned::Spanned;
use syn::{FnArg, ItemFn, Pat, ReturnType, Type};

/// A rank kernel as written.
pub struct RankFn {
    /// The function.
    pub func: ItemFn,
    /// The rank handle's name.
    pub rank: syn::Ident,
    /// The argument struct's type.
    pub args: Type,
}

/// Parses the function and checks its signature.
pub fn parse(item: proc_macro2::TokenStream) -> syn::Result<RankFn> {
    let func: ItemFn = syn::parse2(item)?;
    let (rank, args) = check_signature(&func)?;
    Ok(RankFn { func, rank, args })
}

const SIGNATURE: &str =
    "a rank kernel takes `(rank: &mut Rank, args: &Args)`, where `Args` is a `Copy` struct";

fn check_signature(func: &ItemFn) -> syn::Result<(syn::Ident, Type)> {
    let sig = &func.sig;
    if !sig.generics.params.is_empty() {
        return Err(syn::Error::new(
            sig.generics.span(),
            "a rank kernel cannot be generic: its PTX entry point needs one concrete signature",
        ));
    }
    if let Some(a) = &sig.asyncness {
        return Err(syn::Error::new(a.span(), "a rank kernel cannot be async"));
    }
    if let ReturnType::Type(_, ty) = &sig.output {
        return Err(syn::Error::new(
            ty.span(),
            "a rank kernel returns nothing: write results through the argument struct's pointers",
        ));
    }
    let inputs: Vec<&FnArg> = sig.inputs.iter().collect();
    if inputs.len() != 2 {
        return Err(syn::Error::new(
            sig.inputs
                .span()
                .join(sig.ident.span())
                .unwrap_or(sig.ident.span()),
            format!("{SIGNATURE}; found {} parameter(s)", inputs.len()),
        ));
    }
    let typed = |arg: &FnArg| match arg {
        FnArg::Typed(pt) => Ok(pt.clone()),
        FnArg::Receiver(r) => Err(syn::Error::new(
            r.span(),
            format!("{SIGNATURE}, not `self`"),
        )),
    };
    let (rank, args) = (typed(inputs[0])?, typed(inputs[1])?);
    let rank_name = match &*rank.pat {
        Pat::Ident(id) => id.ident.clone(),
        other => {
            return Err(syn::Error::new(
                other.span(),
                "name the rank handle with a plain identifier (`rank: &mut Rank`)",
            ))
        }
    };
    match &*rank.ty {
        Type::Reference(r)
            if r.mutability.is_some() && last_segment(&r.elem).as_deref() == Some("Rank") => {}
        other => {
            return Err(syn::Error::new(
                other.span(),
                format!("{SIGNATURE}: the first parameter must be `&mut Rank`"),
            ))
        }
    }
    let args_ty = match &*args.ty {
        Type::Reference(r) if r.mutability.is_none() => (*r.elem).clone(),
        other => {
            return Err(syn::Error::new(
                other.span(),
                format!("{SIGNATURE}: the second parameter must be a shared reference, `&Args`"),
            ))
        }
    };
    Ok((rank_name, args_ty))
}

pub fn last_segment(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}
