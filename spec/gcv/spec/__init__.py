# setup.py installs this folder as gcv.spec (package_dir); imported by its bare name from a
# checkout, each of its files would become a second module object beside gcv.spec's.
if __name__ != "gcv.spec":
    raise ImportError(f"import gcv.spec, not {__name__}: spec/ is installed as gcv.spec")
