"""An extraction to typings: what each column's text can be, one vectorised pass, questions where it cannot decide, retyping."""
