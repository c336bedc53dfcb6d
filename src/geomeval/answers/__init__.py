"""Answer extraction and equivalence shared by every benchmark."""

from .choices import ChoiceError, parse_choices, read_option_letter
from .equivalence import Verdict, check_answer, choose_option, compare_values
from .extract import Extracted, extract_final_answer, parse_json_object

__all__ = [
    "ChoiceError",
    "Extracted",
    "Verdict",
    "check_answer",
    "choose_option",
    "compare_values",
    "extract_final_answer",
    "parse_choices",
    "parse_json_object",
    "read_option_letter",
]
