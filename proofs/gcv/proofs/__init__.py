# setup.py installs this folder as gcv.proofs (package_dir); imported by its bare name from a
# checkout, each of its files would become a second module object beside gcv.proofs's.
if __name__ != "gcv.proofs":
    raise ImportError(f"import gcv.proofs, not {__name__}: proofs/ is installed as gcv.proofs")
