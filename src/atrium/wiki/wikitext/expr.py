"""The `{{#expr:}}` and `{{#ifexpr:}}` expression language of MediaWiki's ParserFunctions
(ExprParser): numbers and `e`/`pi`, unary `-` `+` `not` and the functions (`abs`, `trunc`, `floor`,
`ceil`, `sqrt`, `exp`, `ln`, trigonometry), `^`, `*` `/` `div` `mod` `fmod`, `+` `-`, `round`,
comparisons, `and`, `or` — with its precedences, PHP's number printing (14 significant digits) and
its error messages, shown as `<strong class="error">…</strong>`."""

from __future__ import annotations

import math
import re
from collections.abc import Callable


class ExprError(Exception):
    """An expression MediaWiki refuses; the message is its English text."""


_UNARY: dict[str, Callable[[float], float]] = {
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "asin": math.asin,
    "acos": math.acos,
    "atan": math.atan,
    "exp": math.exp,
    "ln": math.log,
    "abs": abs,
    "trunc": lambda x: float(math.trunc(x)),
    "floor": lambda x: float(math.floor(x)),
    "ceil": lambda x: float(math.ceil(x)),
    "sqrt": math.sqrt,
}
_PRECEDENCE = {
    "neg": 10, "pos": 10, "e": 10,
    **dict.fromkeys(_UNARY, 9), "not": 9,
    "^": 8,
    "*": 7, "/": 7, "div": 7, "mod": 7, "fmod": 7,
    "+": 6, "-": 6,
    "round": 5,
    "=": 4, "<": 4, ">": 4, "<=": 4, ">=": 4, "<>": 4, "!=": 4,
    "and": 3,
    "or": 2,
    "(": -1,
}  # fmt: skip
_NAMES = {"neg": "-", "pos": "+", "div": "/"}
_PREFIX = {"neg", "pos", "not", *_UNARY}
_WORDS = {"mod", "fmod", "and", "or", "not", "round", "div", "e", "pi", *_UNARY}
_NUMBER = re.compile(r"[0-9.]+")
_WORD = re.compile(r"[A-Za-z]+")
_SPACE = " \t\r\n"


def _php_float(text: str) -> float:
    """PHP's (float) cast of a digits-and-dots run ("1.2.3" is 1.2)."""
    match = re.match(r"\d*(?:\.\d*)?", text)
    body = match.group(0) if match else ""
    return float(body) if body not in ("", ".") else 0.0


def _apply(op: str, stack: list[float]) -> None:
    """ExprParser::doOperation."""
    if op in _PREFIX:
        if not stack:
            raise ExprError(f"Expression error: Missing operand for {_NAMES.get(op, op)}.")
        arg = stack.pop()
        if op == "neg":
            stack.append(-arg)
        elif op == "pos":
            stack.append(arg)
        elif op == "not":
            stack.append(float(not arg))
        elif op in ("asin", "acos") and not -1 <= arg <= 1:
            raise ExprError(f"Invalid argument for {op}: < -1 or > 1.")
        elif op == "ln" and arg <= 0:
            raise ExprError("Invalid argument for ln: <= 0.")
        elif op == "sqrt" and arg < 0:
            raise ExprError("In sqrt: result is not a number.")
        else:
            stack.append(_UNARY[op](arg))
        return
    if len(stack) < 2:
        raise ExprError(f"Expression error: Missing operand for {_NAMES.get(op, op)}.")
    right = stack.pop()
    left = stack.pop()
    stack.append(_binary(op, left, right))


def _binary(op: str, left: float, right: float) -> float:
    if op == "e":
        return left * 10**right
    if op == "^":
        try:
            value = left**right
        except (ZeroDivisionError, OverflowError):
            value = math.inf
        if isinstance(value, complex):
            raise ExprError("In ^: result is not a number.")
        return float(value)
    if op == "*":
        return left * right
    if op in ("/", "div"):
        if right == 0:
            raise ExprError("Division by zero.")
        return left / right
    if op == "mod":
        divisor = int(right)
        if divisor == 0:
            raise ExprError("Division by zero.")
        dividend = int(left)
        return float(math.copysign(abs(dividend) % abs(divisor), dividend) if dividend else 0)
    if op == "fmod":
        if right == 0:
            raise ExprError("Division by zero.")
        return math.fmod(left, right)
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "round":
        return _php_round(left, int(right))
    comparisons = {
        "=": left == right,
        "<": left < right,
        ">": left > right,
        "<=": left <= right,
        ">=": left >= right,
        "<>": left != right,
        "!=": left != right,
        "and": bool(left) and bool(right),
        "or": bool(left) or bool(right),
    }
    return float(comparisons[op])


def _php_round(value: float, digits: int) -> float:
    """PHP's round(): halves away from zero."""
    factor = 10.0**digits
    scaled = abs(value) * factor
    rounded = math.floor(scaled + 0.5)
    return math.copysign(rounded / factor, value) if rounded else 0.0 * value


def php_number(value: float) -> str:
    """A float as PHP prints it (`precision` 14)."""
    if math.isnan(value):
        return "NAN"
    if math.isinf(value):
        return "INF" if value > 0 else "-INF"
    text = format(value, ".14G")
    if "E" in text:
        mantissa, exponent = text.split("E")
        if "." not in mantissa:
            mantissa += ".0"
        sign = exponent[0]
        text = f"{mantissa}E{sign}{int(exponent[1:])}"
    return text


def evaluate(expression: str) -> str:
    """ExprParser::doExpression: the value, or "" for an empty expression."""
    expr = expression.lower().replace("\u2212", "-")
    operands: list[float] = []
    operators: list[str] = []
    expecting = "expression"
    pos, end = 0, len(expr)

    def push_operator(op: str) -> None:
        while operators and _PRECEDENCE[op] <= _PRECEDENCE[operators[-1]]:
            _apply(operators.pop(), operands)
        operators.append(op)

    while pos < end:
        if len(operands) > 100 or len(operators) > 100:
            raise ExprError("Expression error: Stack exhausted.")
        char = expr[pos]
        if char in _SPACE:
            pos += 1
            continue
        if char in "0123456789.":
            if expecting != "expression":
                raise ExprError("Expression error: Unexpected number.")
            match = _NUMBER.match(expr, pos)
            assert match is not None
            operands.append(_php_float(match.group(0)))
            pos = match.end()
            expecting = "operator"
            continue
        if char.isascii() and char.isalpha():
            match = _WORD.match(expr, pos)
            assert match is not None
            word = match.group(0)
            pos = match.end()
            if word not in _WORDS:
                raise ExprError(f'Expression error: Unrecognized word "{word}".')
            if word in ("e", "pi") and expecting == "expression":
                operands.append(math.e if word == "e" else math.pi)
                expecting = "operator"
                continue
            if word in _PREFIX:
                if expecting != "expression":
                    raise ExprError(f"Expression error: Unexpected {word} operator.")
                operators.append(word)
                continue
            if expecting != "operator":
                raise ExprError(f"Expression error: Unexpected {word} operator.")
            push_operator(word)
            expecting = "expression"
            continue
        two = expr[pos : pos + 2]
        if two in ("<=", ">=", "<>", "!="):
            op, pos = two, pos + 2
        elif char in "+-*/^=<>()":
            op, pos = char, pos + 1
        else:
            shown = re.sub(r"[^\w\s]", lambda m: f"&#{ord(m.group(0))};", char)
            raise ExprError(f'Expression error: Unrecognized punctuation character "{shown}".')
        if op in ("+", "-") and expecting == "expression":
            operators.append("neg" if op == "-" else "pos")
            continue
        if op == "(":
            if expecting == "operator":
                raise ExprError("Expression error: Unexpected ( operator.")
            operators.append("(")
            continue
        if op == ")":
            while operators and operators[-1] != "(":
                _apply(operators.pop(), operands)
            if not operators:
                raise ExprError("Expression error: Unexpected closing bracket.")
            operators.pop()
            expecting = "operator"
            continue
        if expecting != "operator":
            raise ExprError(f"Expression error: Unexpected {op} operator.")
        push_operator(op)
        expecting = "expression"
    while operators:
        op = operators.pop()
        if op == "(":
            raise ExprError("Expression error: Unclosed bracket.")
        _apply(op, operands)
    return "<br />\n".join(php_number(v) for v in operands)


def expr_function(expression: str) -> str:
    """`{{#expr:}}`: the value, or the error as MediaWiki shows it."""
    try:
        return evaluate(expression)
    except ExprError as error:
        return f'<strong class="error">{error}</strong>'


def ifexpr_function(expression: str, then: str, otherwise: str) -> str:
    """`{{#ifexpr:}}`: `then` when the value is not zero, else `otherwise`; errors shown."""
    try:
        value = evaluate(expression)
    except ExprError as error:
        return f'<strong class="error">{error}</strong>'
    if value == "":
        return otherwise
    try:
        return then if float(value.split("<br />")[-1]) != 0 else otherwise
    except ValueError:
        return then
