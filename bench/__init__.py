"""Scripts that measure the product from outside and print their figures (see each module's docstring)."""
