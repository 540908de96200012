//! The items a rank kernel expands to: the body as a function, the PTX
//! entry point and the host-side launch handle.

use super::ast::RankFn;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// The expansion of `k`, with `errors` (rule violations) as compile
/// errors beside it: the items the user's code refers to (the handle) are
/// emitted either way, so one mistake gives one error, not a cascade.
pub fn expand(k: &RankFn, errors: Vec<syn::Error>) -> TokenStream {
    let func = &k.func;
    let args_ty = &k.args;
    let attrs = &func.attrs;
    let vis = &func.vis;
    let ident = &func.sig.ident;
    let entry = ident.to_string();
    let body_fn = format_ident!("__dcuda_rank_{}", ident);
    let handle = format_ident!("{}", entry.to_uppercase());
    let handle_doc = format!("Host-side launch handle of the rank kernel `{entry}`.");
    let mut body_sig = func.sig.clone();
    body_sig.ident = body_fn.clone();
    let block = &func.block;
    let call = quote!(#body_fn(rank, args));
    let staged = format_ident!("__DCUDA_ARGS_{}", entry.to_uppercase());
    let args_check = quote_spanned! {args_ty.span()=>
        const _: fn() = || {
            fn rank_args<A: ::dcuda_device::rank::RankArgs>() {}
            rank_args::<#args_ty>();
        };
        // Every rank copies its arguments into shared memory.
        const _: () = ::core::assert!(
            ::core::mem::size_of::<#args_ty>() <= ::dcuda_device::rank::MAX_ARGS_BYTES,
            "a rank kernel's arguments must fit in 4 KiB (every rank copies them into shared memory): pass large data as a DeviceSlice"
        );
        const _: () = ::core::assert!(
            ::core::mem::align_of::<#args_ty>() <= 8,
            "a rank kernel's arguments must not need more than 8-byte alignment"
        );
    };
    if !errors.is_empty() {
        // Only the handle, with no body: the body breaks a rule, and
        // compiling it would add rustc's errors to ours.
        let errors = errors.into_iter().map(syn::Error::into_compile_error);
        return quote! {
            #(#errors)*
            #[allow(unused_variables, dead_code, clippy::missing_safety_doc)]
            #vis #body_sig {
                ::core::unreachable!("this rank kernel did not compile")
            }
            #args_check
            #[cfg(not(target_arch = "nvptx64"))]
            #[doc = #handle_doc]
            #vis const #handle: ::dcuda_device::kernel::RankKernel<#args_ty> =
                ::dcuda_device::kernel::RankKernel::new(#entry, |_, _| {
                    ::core::unreachable!("this rank kernel did not compile")
                });
        };
    }
    quote! {
        #(#attrs)*
        #[inline(always)]
        #[allow(clippy::missing_safety_doc)]
        #vis #body_sig #block

        #args_check

        ::dcuda_device::shared_array!(
            static #staged: [u64; ::dcuda_device::rank::args_words::<#args_ty>()]
        );

        #[cfg(target_arch = "nvptx64")]
        #[no_mangle]
        #[allow(clippy::missing_safety_doc)]
        #vis unsafe extern "ptx-kernel" fn #ident(
            context: *const ::dcuda_device::abi::RankContext,
            args: *const #args_ty,
        ) {
            // Forcing this closure inline was measured: small puts got 8%
            // faster, notified-put latency 9% slower (bench/results/
            // 2026-11-23-architecture-h200x2); the compiler decides.
            #[allow(unused_unsafe)]
            ::dcuda_device::Rank::run(context, args, &#staged, |rank, args| unsafe { #call })
        }

        #[cfg(not(target_arch = "nvptx64"))]
        #[doc = #handle_doc]
        #vis const #handle: ::dcuda_device::kernel::RankKernel<#args_ty> =
            ::dcuda_device::kernel::RankKernel::new(#entry, |context, args| {
                #[allow(unused_unsafe)]
                unsafe {
                    ::dcuda_device::Rank::run(context, args, &#staged, |rank, args| #call)
                }
            });
    }
}
