"""The Hugging Face Space's entry point; the app itself is `geomeval.demo.app` (installed with the package)."""

from geomeval.demo.app import main

if __name__ == "__main__":
    main()
