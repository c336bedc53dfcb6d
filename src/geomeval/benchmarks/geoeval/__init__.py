"""GeoEval: solving geometry problems in four subsets (main, backward, augmented, hard), scored
after two-step answer extraction, with the paper's breakdowns."""
