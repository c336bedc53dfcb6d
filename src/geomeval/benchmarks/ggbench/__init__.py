"""GGBench: generating geometric constructions (plan, GeoGebra code, figure), scored by the
project's GeoGebra engine, code and pixel similarity, and judge rubrics."""
