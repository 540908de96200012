//! `#[kernel]`: a raw CUDA-style kernel (every thread runs the body).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{spanned::Spanned, FnArg, ItemFn, Pat, ReturnType};

pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new(attr.span(), "#[kernel] takes no arguments"));
    }
    let func: ItemFn = syn::parse2(item)?;
    let sig = &func.sig;
    if !sig.generics.params.is_empty() {
        return Err(syn::Error::new(
            sig.generics.span(),
            "a kernel cannot be generic: its PTX entry point needs one concrete signature",
        ));
    }
    if let Some(asyncness) = &sig.asyncness {
        return Err(syn::Error::new(
            asyncness.span(),
            "a kernel cannot be async",
        ));
    }
    if let ReturnType::Type(_, ty) = &sig.output {
        return Err(syn::Error::new(
            ty.span(),
            "a kernel returns nothing: write results through a pointer parameter",
        ));
    }
    let mut names = Vec::new();
    let mut types = Vec::new();
    for arg in &sig.inputs {
        match arg {
            FnArg::Receiver(r) => {
                return Err(syn::Error::new(r.span(), "a kernel cannot take `self`"));
            }
            FnArg::Typed(pt) => match &*pt.pat {
                Pat::Ident(id) if id.by_ref.is_none() && id.subpat.is_none() => {
                    names.push(id.ident.clone());
                    types.push((*pt.ty).clone());
                }
                other => {
                    return Err(syn::Error::new(
                        other.span(),
                        "kernel parameters must be plain `name: Type` bindings",
                    ));
                }
            },
        }
    }

    let attrs = &func.attrs;
    let vis = &func.vis;
    let ident = &sig.ident;
    let unsafety = &sig.unsafety;
    let inputs = &sig.inputs;
    let body = &func.block;
    let entry = ident.to_string();
    let handle = format_ident!("{}", entry.to_uppercase());
    let handle_doc = format!("Host-side launch handle of the kernel `{entry}`.");
    let call = if unsafety.is_some() {
        quote!(unsafe { #ident(#(#names),*) })
    } else {
        quote!(#ident(#(#names),*))
    };

    Ok(quote! {
        #[cfg(target_arch = "nvptx64")]
        #(#attrs)*
        #[no_mangle]
        #[allow(clippy::missing_safety_doc)]
        #vis unsafe extern "ptx-kernel" fn #ident(#inputs) #body

        // The safety contract of a kernel is its launch's (`Module::launch`).
        #[cfg(not(target_arch = "nvptx64"))]
        #[allow(clippy::missing_safety_doc)]
        #(#attrs)*
        #vis #unsafety fn #ident(#inputs) #body

        #[cfg(not(target_arch = "nvptx64"))]
        #[doc = #handle_doc]
        #vis const #handle: ::dcuda_device::kernel::Kernel<(#(#types,)*)> =
            ::dcuda_device::kernel::Kernel::new(#entry, |(#(#names,)*)| #call);
    })
}
