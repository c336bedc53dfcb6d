"""Chinese caption parser: the common phrasings of figure captions and problem statements.

Covered (each gives the same keypoints as its English counterpart, so a Chinese reference
can score an English caption and the other way round):

- shapes: 三角形ABC / △ABC / Rt△ABC / 在△ABC中, 四边形 平行四边形(▱) 矩形 长方形 正方形 菱形 梯形
  五边形 六边形 多边形 ABCD (等腰 等边 直角 正 as properties), 四边形ABCD是平行四边形,
  底面ABCD是边长为4的正方形, 圆O / ⊙O / 以O为圆心的圆, 点D, 线段AB 边BC 弦 直径 半径 对角线
  中线 高 棱, 连接AD, 直线l / 直线AB, 射线, 弧AB, 平面ABCD, x轴 y轴 坐标系 坐标轴, 正方体 立方体
  长方体 圆柱 圆锥 圆台 球 棱锥 棱柱 四面体 (P-ABCD, ABCD-A1B1C1D1), 抛物线 椭圆 双曲线;
- relations: D是BC的中点 / D、E分别是AB、AC的中点 / BC的中点D, 点D在BC上 / 在BC的延长线上,
  E是CD上一点, ⊙O经过点A, A、B、C三点共线, AD⊥BC(于点D), AD垂直于BC, AB∥CD / AB平行于CD,
  AC与BD相交于点O / AC交BD于点O / O是AC与BD的交点, 直线l与⊙O相切于点P, PA切⊙O于A,
  PA、PB分别与⊙O相切于点A、B, PA是⊙O的切线, ⊙O1与⊙O2外切于点T, AB是⊙O的直径/弦/半径,
  ⊙O的弦AB, AD是△ABC的中线/高/角平分线, 对角线AC、BD, AD平分∠BAC(交BC于点D),
  O是△ABC的外心/内心/重心/垂心, 点P在△ABC内/外, △ABC内接于⊙O, ⊙O是△ABC的外接圆/内切圆,
  △ABC≌△DEF / ∽ / 与…全等 / 相似, AB与AC相等, 直线a与直线b平行, 直线c分别与a、b相交于点A、B,
  直线c交直线a于点A，交直线b于点B, 抛物线…与x轴交于A、B两点, 两个同心圆 / 大圆 / 小圆 (⊙⁺, ⊙⁻),
  ⊙O的直径为AB; and (#41) D为BC中点 / BC中点D, AC与BD的交点为O, AC∩BD=O, 有两个交点，分别记为A和B,
  连接AC、BD交于点O, 相切，切点为A, KL是⊙Q的切线，切点为K, PA、PB是⊙O的切线，A、B为切点,
  ⊙I与BC、CA、AB分别相切于D、E、F, 点E、F分别在AB、AC上, 在同一直线上, X与Y(互相)垂直,
  直线l垂直平分AB, ∠BAC的平分线交BC于点D, ⊙O经过△ABC的三个顶点, 延长AB到点E, 球内切于正方体 /
  正方体的内切球 / 外接球, △ABC的重心为G, 是全等三角形, 直线l1: …与直线l2: …交于点P;
- numbers: AB=AC=5, ∠BAC=40°, ∠C是直角, ∠BAC的度数为40°, AD:DB=1:2, AB=2CD, AB的长为5,
  ⊙O的半径为3, 半径为3的⊙O, △ABC的面积/周长为12, 体积, 表面积, 母线长, 正方体…的棱长为2,
  边长为4的正方形, 点A的坐标为(1,2), A(1,2), 原点O, y=2x+1.

Not covered: free word order beyond these templates, quantities in Chinese numerals (三, 五),
relations stated only through a construction (过点A作BC的垂线 without the ⊥ written), and
`X是…的切线` keeps no point of tangency (none is written).
"""

from __future__ import annotations

import re
from functools import partial

from . import canonical as cn
from ._engine import (
    ANG,
    ARC,
    BIG,
    CIRC,
    LINE_NAME,
    NUMC,
    NUMSTART,
    OBJ_CORE,
    PNAME,
    POLY,
    PT,
    RB,
    SEG,
    SMALL,
    SOLID_NAME,
    Builder,
    Rule,
    RuleSet,
    Sub,
    TermGrammar,
    affirmed,
    apply_subs,
    denied_segments,
    equations,
    list_of,
    run_rules,
    sentences,
)
from ._engine import sub as _sub
from ._normalize import common, drop_colours_zh, solid_planes
from .en_patterns import (
    COORDS,
    canon,
)
from .en_reference import bare_line_names
from .en_relations import (
    _on_centre,
    _on_circle_of,
    _on_circle_role,
    _on_collinear,
    _on_concentric_pair,
    _on_congruent,
    _on_coordinate,
    _on_curve_point,
    _on_equal_words,
    _on_inscribed,
    _on_inside,
    _on_intersect,
    _on_midpoint,
    _on_named_circle_of,
    _on_on,
    _on_origin,
    _on_perp,
    _on_perp_bisector,
    _on_segment_role,
    _on_tangent_pair,
    _pairwise,
    _tangent,
)
from .en_relations import (
    _on_tangent_to as _on_tangents_respectively,
)
from .model import KeypointSet
from .parse_en import (
    _elements,
    _on_angle,
    _on_arc,
    _on_circle,
)

SEP = "(?:、|,|和|与|及)"
OBJW = "(?:线段|直线|射线|斜边|底边|上底|下底|边|腰|棱|弦|对角线|三角形|四边形|正方形|矩形|长方形|菱形|平行四边形|梯形|圆|弧)?"


def obj(name: str) -> str:
    return f"{OBJW}(?P<{name}>{OBJ_CORE})"


PLIST = list_of(PNAME, SEP, 10)
PTS3 = list_of(PNAME, SEP, 3) + "(?![为是在的=])"  # meeting points; `交于点B,O为原点`: O starts the next clause
OBJ_LIST = list_of(f"{OBJW}{OBJ_CORE}", SEP, 4)
POLYWORD = "(?:平行四边形|正方形|长方形|矩形|菱形|梯形|三角形|四边形|五边形|六边形|八边形|多边形)"
ADJ = "(?:等腰|等边|直角|正|Rt(?=△))"
_POLY_KIND = {"平行四边形": "parallelogram", "正方形": "square", "长方形": "rectangle", "矩形": "rectangle",
              "菱形": "rhombus", "梯形": "trapezoid", "三角形": "triangle", "四边形": "quadrilateral",
              "五边形": "pentagon", "六边形": "hexagon", "八边形": "octagon", "多边形": "polygon"}
_ADJ = {"等腰": "isosceles", "等边": "equilateral", "直角": "right", "正": "regular", "Rt": "right"}
_ADJ_RE = re.compile("等腰|等边|直角|正|Rt")
_POLY_RE = re.compile(POLY)
_PNAME_RE = re.compile(PNAME)
_SEG_RE = re.compile(SEG)
SOLIDWORD = "(?:正方体|立方体|长方体|圆柱|圆锥|圆台|四面体|正?[三四五六]?棱锥|直?[三四五六]?棱柱|球)"


def solid_kind(word: str) -> str | None:
    if word in ("正方体", "立方体"):
        return "cube"
    if word == "长方体":
        return "cuboid"
    if word.endswith("棱锥"):
        return "pyramid"
    if word.endswith("棱柱"):
        return "prism"
    return {"圆柱": "cylinder", "圆锥": "cone", "圆台": "frustum", "四面体": "tetrahedron", "球": "sphere"}.get(word)


def _zh_bisector_meets(m: re.Match[str]) -> str:
    """`∠BAC的平分线交BC于点D` -> `AD平分∠BAC,交BC于点D` (the bisector from the angle's vertex)."""
    vertex = cn.angle_vertex(cn.angle(m.group(1)))
    if vertex is None or vertex == m.group(3):
        return m.group(0)
    return f"{vertex}{m.group(3)}平分{m.group(1)},交{m.group(2)}于点{m.group(3)}"


def _lines(m: re.Match[str]) -> str:
    return f"{m.group(1)}ℓ{m.group(2)}"



_SEGS = rf"(?:{SEG}、){{1,7}}{SEG}"
_XY = r"\([^()]{1,24}\)"
_SIDE = "(?:左、右|左右|上、下|上下|两个|一个|左|右|上|下)?"


def _tangent_at(m: re.Match[str]) -> str:
    circles = re.findall(rf"⊙({PT}){RB}", m.string[max(0, m.start() - 200) : m.end()])
    if not circles:
        return m.group(0)
    c, seg, ext, p = m.group(1), m.group(2), m.group(3) or "", m.group(4)
    return f"{p}{c}切⊙{circles[-1]}于点{c},点{p}在{seg}{ext}上"


def _conic_roles(m: re.Match[str]) -> str:
    """`椭圆…的右焦点为F(2, 0)，上顶点为B(0, √5)`: each point's role, its coordinates kept apart."""
    conic, roles = m.group(1), []
    for point, xy, role in ((m.group(4), m.group(5), m.group(3)), (m.group(6), m.group(7), m.group(3)),
                            (m.group(9), m.group(10), m.group(8))):
        if point:
            roles.append(f"点{point}是{conic}的{role}" + (f",{point}{xy}" if xy else ""))
    return f"{conic}{m.group(2)}," + ",".join(roles)
_ZH_EQ = r"[-−+*/^()\d.xy²√]{1,30}=[-−+*/^()\d.xy²√]{1,30}?"


def _points_then_coordinates(m: re.Match[str]) -> str:
    """`交x轴于A(−2,0)，交y轴于B(0,4)`: the meeting points stay where the rules read them, their
    coordinates move to the end of the clause group."""
    coords = re.findall(rf"({PT}){RB}({_XY})", m.group(0))
    return re.sub(rf"(?<=[于、])(?:点)?({PT}){RB}{_XY}", r"点\1", m.group(0)) + "".join(f";{p}{xy}" for p, xy in coords)


_ZH_SUBS: list[Sub] = [
    # round 5: an equation between a named object and its verb (`直线l: y=2x+4交x轴于A`, `…，它与x轴交于`)
    _sub(("=",), rf"((?:直线|圆|抛物线|椭圆|双曲线)(?:[a-z]\d{{0,2}}|[A-Z]\d{{0,2}})?)((?:的解析式为|的方程为|:|：)?{_ZH_EQ})(?:,它|，它)?(?=与|交|和)", r"\1\2,\1"),
    # `交x轴于A(−1,0)、B(3,0)`: the meeting points, then their coordinates
    _sub(("于",), rf"于(?:点)?({PT}){RB}{_XY}(?:、(?:点)?{PT}{RB}{_XY})?[^;；。]*", _points_then_coordinates),
    # `椭圆…，焦点F1、F2`, `抛物线…，顶点为D`: a terse role of the conic named before
    _sub(("焦点", "顶点"), r"(椭圆|抛物线|双曲线)([^。]{0,60}?)[,，;；]其?(焦点|顶点)(?:为|是)?(?:点)?(?=[A-Z])", r"\1\2,\1的\3为"),
    # `双曲线…，F1、F2为焦点`, `…，F1、F2是它的两个焦点`: the points first, the role after
    _sub(("焦点", "顶点"), rf"(椭圆|抛物线|双曲线)([^。]{{0,60}}?)[,，;；](?:点)?({PT}){RB}(?:(?:、|和|与)(?:点)?({PT}){RB})?(?:分别)?(?:为|是)(?:它的|其|该(?:椭圆|抛物线|双曲线)的)?{_SIDE}(焦点|顶点)",
         lambda m: f"{m.group(1)}{m.group(2)}," + ",".join(f"点{p}是{m.group(1)}的{m.group(5)}" for p in (m.group(3), m.group(4)) if p)),
    _sub(("一条直线上",), r"在一条直线上", "在同一直线上"),
    _sub(("平分线",), rf"(∠{PT}{PT}{PT}){RB}的(?:角)?平分线({SEG})(?![A-Za-z0-9'])", r"线段\2平分\1,线段\2"),  # `∠ACB的平分线CD与⊙O相交于点D`
    _sub(("准线",), r"(椭圆|抛物线|双曲线)([^。]{0,60}?)(?:[,，;；]其?|的)准线(?:为|是)?(?:直线)?([a-z]\d{0,2})(?![A-Za-z0-9'])", r"\1\2,直线\3是\1的准线"),
    _sub(("引",), rf"从(⊙{PT}{RB})外一点({PT}){RB}引", r"点\2在\1外,过点\2作"),  # `从⊙O外一点P引⊙O的两条切线`
    _sub(("连接",), rf"连接({SEG})[,，]与", r"连接\1,\1与"),  # `连接AB，与OP相交于点C`: AB meets OP
    # `PA、AB、BC的长度都是2`, `PD与AD都等于2`: each of them; `AB是长为8的弦`: the chord and its length
    _sub(("都",), rf"((?:{SEG}(?:、|,|与|和)){{1,4}}{SEG})的?(?:长度|长)?都(?:是|为|等于)({NUMSTART}{NUMC})",
         lambda m: "=".join(re.findall(SEG, m.group(1))) + "=" + m.group(2)),
    _sub(("长为", "长是"), rf"({SEG})是长(?:为|是)({NUMSTART}{NUMC})的(弦|线段|直径)", r"\1是\3,\1=\2"),
    _sub(("顶点",), rf"(?<![A-Z])([A-Z]{{3,6}})的(?:三|四|五|六|所有|各)个?顶点(?:都|均)在(⊙{PT}{RB}|⊙)上",
         lambda m: ("," if m.start() and m.string[m.start() - 1].isascii() and m.string[m.start() - 1].isalpha() else "") + f"{m.group(1)}内接于{m.group(2)}"),
    _sub(("平分弧", "平分⌒"), rf"({PT}){RB}平分(?:弧|⌒)({SEG})", r"\1是弧\2的中点"),
    _sub(("画弧",), rf"画弧[,，]?分别交({SEG})、({SEG})于(?:点)?({PT}){RB}、({PT}){RB}", r"画弧,点\3、\4分别在\1、\2上"),
    _sub(("都是",), rf"△({POLY})(?:和|与|、)△({POLY})都是(等边|等腰|直角)三角形", r"△\1是\3三角形,△\2是\3三角形"),
    _sub(("对角线",), rf"对角线({SEG})=({SEG})", r"对角线\1、\2,\1=\2"),  # `对角线AC=BD=6`: both are diagonals
    # `四边形ABCD各边AB、BC、CD、DA的中点E、F、G、H`: the i-th point is the midpoint of the i-th side
    _sub(("中点",), rf"(分别(?:是|为))({POLYWORD}?{POLY})的?(?:各|的)((?:边|棱){_SEGS})的中点", r"\1\3的中点,\2"),
    _sub(("中点",), rf"(?:(?P<poly>{POLYWORD}?{POLY})(?:的|各))?(?<![是为])(?P<segs>(?:边|棱)?{_SEGS})的中点(?:分别为|分别是)?(?:点)?(?P<pts>(?:{PT}、){{1,7}}{PT}){RB}",
         lambda m: f"{m.group('poly') + ',' if m.group('poly') else ''}{m.group('pts')},{m.group('pts')}分别是{m.group('segs')}的中点"),
    _sub(("的切线",), rf"(⊙{PT}{RB})的切线((?:{SEG}|ℓ?[a-z]\d{{0,2}})(?![A-Za-z0-9']))(?!是|为)", r"\2是\1的切线"),  # `⊙O的切线PA，切点为A`
    # `弦KL⊥直径MN于点T`: each role word stays with its name, the relation between the names
    _sub(("⊥", "∥"), rf"(弦|直径)({SEG})([⊥∥])(弦|直径)?({SEG})", r"\1\2,\4\5,\2\3\5"),
    _sub(("切点",), rf"[,，](?:点)?({PT}){RB}(?:为|是)切点", r",切点为\1"),  # `KL是⊙W的切线，K为切点`
    # `过点Q作⊙W的两条切线QA、QB，切点分别为A、B`: each tangent touches at its point
    _sub(("切点分别",), rf"作(⊙{PT}{RB})的(?:两条)?切线({SEG})(?:、|和|与|,)({SEG}),?切点分别(?:为|是)(?:点)?({PT})(?:、|和|与|,)(?:点)?({PT}){RB}",
         r",\2、\3分别切\1于点\4、\5"),
    _sub(("中线",), rf"(△?{POLY})的(?:三条)?中线(?:相)?交于(?:点)?({PT}){RB}", r"\2是\1的重心"),  # `△ABC的三条中线交于点G`: the centroid
    # `直线g与x轴、y轴分别交于点K、L`: `respectively` after the list
    _sub(("分别交", "分别相交"), rf"((?:直线|线段)?(?:ℓ?[a-z]\d{{0,2}}|{SEG}|⊙{PT}{RB}))(?:与|和)([^,;。分与和]{{1,24}}?)分别(?:相)?交于", r"\1分别与\2相交于"),
    _sub(("延长线",), rf"({SEG}){RB}的延长线(?=交|与|和)", r"\1"),  # `KL的延长线交MN于点T`: the line KL meets MN there
    _sub(("长",), rf"(?<![A-Z0-9'])({SEG}){RB}(?:的)?长(?:度)?(?:为|是)?(?=[\d√])", r"\1="),  # `KL长5`
    _sub(("中位线",), rf"({SEG}){RB}(?:是|为)(?:△{POLY}的)?中位线", r"连接\1"),  # `DE是中位线`: the segment is drawn
    _sub(("是一个", "是一条", "为一个"), r"(?<=[A-Z0-9'])(是|为)一(?:个|条)", r"\1"),  # `ABCD是一个直角梯形`
    _sub(("弦",), rf"弦({SEG})(与|和|、)弦({SEG})", r"弦\1\2\3"),  # `⊙O的弦AB与弦CD`: both chords
    _sub(("顶点",), rf"({SOLIDWORD})({SOLID_NAME})?的(?:八个|四个|六个|所有|各个?|全部)?顶点(?:都|均|全)?在(球)([A-Z]?)的?(?:球面|表面)?上", r"\1\2内接于球\4"),
    _sub(("该", "这个"), r"(?:该|这个)(?=圆锥|圆柱|正方体|长方体|球|[三四]?棱[锥柱]|四面体)", ""),  # `内切于该圆锥`: the one solid
    _sub(("内切球",), rf"({SOLIDWORD})(?:{SOLID_NAME})?(?:内|中)有(?:一个)?内切球", r"\1,球内切于\1"),  # `正方体内有一个内切球`
    _sub(("上底", "下底", "腰", "底"), rf"(?:上底|下底|腰|底)(?={SEG}{RB})", ""),  # `上底AD与下底BC平行`: the names carry the relation
    _sub(("圆外", "圆内"), r"(?<=在|于)圆(?=外|内)", "⊙"),  # `点P在圆外`: outside the circle in context
    # `经过x轴上的点A(−1,0)、B(3,0)`: points on an object, named after it
    # `点D在BC边上`, `点D是BC边上一点`, `AD是BC边上的高`: as `边BC上` (the side is named, guide)
    _sub(("边上",), rf"(?:(?<=在)|(?<=是)(?={SEG}边上(?:的)?(?:一?点|高|中线|垂线)))({SEG})边上", r"边\1上"),
    _sub(("上的点", "上的一点"), rf"(?:经过|过|有)?((?:直线|线段)?(?:[xyz]-axis|[xyz]轴|ℓ?[a-z]\d{{0,2}}|{SEG}|⊙{PT}))上的(?:一)?点((?:{PT}{RB}(?:\([^()]{{1,20}}\))?(?:、|,|和)?){{1,4}})",
         lambda m: f"点{m.group(2).rstrip('、,和')}在{m.group(1)}上,"),
    _sub(("▱",), r"▱", "平行四边形"),
    _sub(("为圆心", "为公共圆心"), rf"以(?:点)?{PT}{RB}为(?:公共)?圆心(?:画|作)?(?:了)?(?:大、小|大小|一大一小)?(?:两个|两|2个)圆", "⊙" + BIG + "与⊙" + SMALL + "同心,"),
    _sub(("side", "segment", "edge"), rf"(?<![a-z])(?:side|segment|edge) ?(?={PT})", ""),
    _sub(("一条", "一根"), r"的(?:一条|一根)(弦|直径|半径|切线)", r"的\1"),
    _sub(("它",), rf"({SEG})(是|为)([^,;。它]{{1,20}}),它(和|与|交|切)", r"\1\2\3,\1\4"),
    _sub(("同心圆",), rf"(?:以(?:点)?{PT}为圆心的)?(?:两个|两|2个)?同心圆(?:的圆心(?:为|是)(?:点)?{PT}{RB})?(?:中)?",
         "⊙" + BIG + "与⊙" + SMALL + "同心,"),
    _sub(("大圆",), r"(?<![最])大圆(?:的)?", "⊙" + BIG),
    _sub(("小圆",), r"(?<![最])小圆(?:的)?", "⊙" + SMALL),
    # other surface forms of the same canonical relations (see canonical.RELATIONS)
    _sub(("分别",), rf"((?:⊙{PT}|{SEG}))(与|和|、)((?:⊙{PT}|{SEG}))([^;。]{{0,30}}?),(?:它们的|两圆的|其)?半径分别(?:为|是)({NUMC})(?:和|与|、|,)({NUMC})",
         r"\1\2\3\4,\1的半径为\5,\3的半径为\6"),
    _sub(("圆心",), rf"(?:⊙|(?<![外内切])圆)({PT})的圆心(?:为|是|坐标为)(?:点)?(?=\()", r"⊙\1,\1="),
    _sub(("半径",), rf"半径(?:为|是)({NUMC})的(⊙{PT})", r"\2,\2的半径为\1,"),
    _sub(("半径", "边长", "棱长"), r"(半径|边长|棱长)(?=\d)", r"\1为"),
    _sub(("长",), rf"(?:长|长度)(?:为|是)({NUMC})的(弦|线段|边)?({SEG})", r"\2\3,\3=\1,"),
    _sub(("平分",), rf"(?<![A-Z0-9'])(?:点)?({PT})平分(?:线段|边)?({SEG}){RB}", r"\1是\2的中点"),
    _sub(("互相平分",), rf"(?:线段)?({SEG})(?:、|与|和)(?:线段)?({SEG})互相平分于(?:点)?({PT})", r"点\3是\1的中点,点\3是\2的中点,\1与\2交于点\3"),
    _sub(("只有一个交点", "有且只有一个交点", "唯一的公共点", "唯一公共点"),
         rf"((?:直线|线段)?(?:{SEG}|ℓ?[a-z]\d{{0,2}})|⊙(?:{PT}|[{BIG}{SMALL}])?)(与|和)((?:直线|线段)?(?:{SEG}|ℓ?[a-z]\d{{0,2}})|⊙(?:{PT}|[{BIG}{SMALL}])?)(?:有且)?(?:只有一个交点|有唯一的?公共点)(?:为|是)?(?:点)?({PT})",
         r"\1\2\3相切于点\4"),
    _sub(("顶点",), rf"((?:△|三角形|四边形|正方形|矩形|长方形|梯形)?{POLY})的(?:三个|四个|各个|各|所有)?顶点(?:都|均)?(?:在|落在)(⊙{PT}?)上",
         r"\1内接于\2"),
    _sub(("平行线",), rf"过(?:点)?({PT})作((?:直线|线段)?{SEG})的平行线(?:{PT}{PT})?,?(?:交|与)((?:直线|线段)?{SEG})(?:的延长线)?(?:相交)?于(?:点)?({PT})",
         r"\1\4∥\2,点\4在\3上"),
    _sub(("底面", "侧面"), rf"(⊥|垂直于)(?:底面|侧面)({POLY})", r"\1平面\2"),
    _sub(("切线",), rf"过(?:切)?(?:点)?({PT})作(⊙{PT}?)的切线(?:{PT}{PT})?,?(?:且)?(?:交|与)((?:直线|线段)?{SEG})(?:的延长线)?(?:相交)?于(?:点)?({PT})",
         r"\4\1切\2于点\1,点\4在\3上"),
    _sub(("两点",), rf"({PT})(、|和|与)({PT})两点(?=都|均|在)", r"点\1\2\3"),
    _sub(("长为", "长度为", "长是"), rf"({SEG})(是[^,;。]{{1,20}}?),(?:且)?(?:其)?(?:长|长度)(?:为|是|等于)({NUMSTART}{NUMC})", r"\1\2,\1=\3"),
    _sub(("切点",), rf"(?:过(?:切)?(?:点)?({PT}))?作({CIRC})的切线({SEG}),?切点(?:为|是)(?:点)?({PT}){RB}",
         lambda m: (f"点{m.group(1)}," if m.group(1) else "") + f"{m.group(3)}切{m.group(2)}于点{m.group(4)}"),
    _sub(("垂足分别",), rf"(?:从|由|自|过)(?:点)?({PT})分别(?:向|作)((?:直线|线段)?{SEG})(?:、|和|与)((?:直线|线段)?{SEG})(?:作|引)?(?:的)?垂线(?:段)?,?垂足分别(?:为|是)(?:点)?({PT})(?:、|和|与)(?:点)?({PT})",
         r"\1\4⊥\2于点\4,\1\5⊥\3于点\5"),
    _sub(("既在",), rf"(?:点)?({PT})既在((?:直线|线段)?{SEG})上又在((?:直线|线段)?{SEG})上", r"\2与\3交于点\1"),
    _sub(("连",), rf"(?<![接结])连(?!接|结)(?={SEG})", "连接"),
    _sub(("作",), rf"作({SEG})([∥⊥])((?:直线|线段)?{SEG}),(?=交)", r"作\1\2\3,\1"),
    _sub(("分别",), rf"((?:直线)?(?:ℓ?[a-z]\d{{0,2}}|{SEG}))(?:与|和)((?:直线)?(?:ℓ?[a-z]\d{{0,2}}|{SEG}))(?:、|和|与)((?:直线)?(?:ℓ?[a-z]\d{{0,2}}|{SEG}))"
         rf"分别(?:相)?交于(?:点)?({PT})(?:、|和|与)(?:点)?({PT})", r"\1与\2交于点\4,\1与\3交于点\5"),
    _sub(("垂线",), rf"过(?:圆心|点)?({PT})作((?:直线|线段)?(?:{SEG}|[a-z]\d{{0,2}}))的垂线(?:段)?,?垂足(?:为|是)(?:点)?({PT})",
         r"\1\3⊥\2于点\3"),
    _sub(("向",), rf"(?:从|由|自)(?:顶点|点)?({PT})向(?:底边|斜边|对边|边)?((?:直线|线段)?(?:{SEG}|[a-z]\d{{0,2}}))(?:作|引)垂线(?:段)?(?:{PT}{PT})?,?垂足(?:为|是)(?:点)?({PT})",
         r"\1\3⊥\2于点\3"),
    _sub(("公共点",), rf"((?:直线|线段)?(?:{SEG}|ℓ?[a-z]\d{{0,2}})|(?:⊙|圆)(?:{PT}|[{BIG}{SMALL}])?)(与|和)((?:直线|线段)?(?:{SEG}|ℓ?[a-z]\d{{0,2}})|(?:⊙|圆)(?:{PT}|[{BIG}{SMALL}])?)(?:有且)?只有一个公共点(?:点)?({PT})",
         r"\1\2\3相切于点\4"),
    _sub(("点",), rf"(点{PT}{RB})(和|与|、)点(?={PT}{RB})", r"\1\2"),
    _sub(("焦点", "顶点"), rf"(椭圆|抛物线|双曲线)([^,;。]{{0,40}}?)的{_SIDE}(焦点|顶点)(?:分别)?(?:为|是)(?:点)?({PT}){RB}({_XY})?(?:(?:、|和|与)(?:点)?({PT}){RB}({_XY})?)?"
         rf"(?:[,;]{_SIDE}(焦点|顶点)(?:为|是)(?:点)?({PT}){RB}({_XY})?)?", _conic_roles),
    _sub((":",), r"((?:直线|圆|⊙)ℓ?[a-zA-Z]\d{0,2})(:[^,;。与和]{1,40}?)(与|和)(?=[^,;。]{1,12}交)", r"\1\2,\1\3"),
    _sub(("and交", "并交", "且交", "and 交"), r"(?<=[A-Za-z0-9°'])(?:and|并且|并|且)(?=交[^,;。]{1,12}于)", ","),
    _sub((",交",), rf"(?:^|(?<=[,;.。]))((?:{PT}){{2}})(?=[a-z])([^,;.。]{{1,30}}),交(?=[^,;。]{{1,12}}于)", r"\1\2,\1交"),  # mixed: `AD bisects ∠BAC and 交BC于D`
    _sub((",与", ",和", ",交"), rf"((?:^|[,;])(?:⊙{PT}|{SEG}|直线ℓ?[a-z]\d{{0,2}}))([^,;]{{1,30}}),(与|和|交(?=[^,;]{{1,12}}于))",
         r"\1\2,\1\3"),
    _sub(("圆",), r"(?<![⊙外内切心])圆([^,;。⊙]{3,40}?)(经过|过)(?=点|[A-Z])", r"圆\1,⊙\2"),
    # more surface forms of the canonical relations (#41), each rewritten to a wording the rules read
    _sub(("∩",), rf"({OBJ_CORE})∩({OBJ_CORE})=\{{?({PT}){RB}(?:,({PT}){RB})?\}}?",
         lambda m: f"{m.group(1)}与{m.group(2)}相交于点{m.group(3)}" + (f"、{m.group(4)}" if m.group(4) else "")),
    _sub(("交点",), rf"((?:直线|线段)?(?:{SEG}|ℓ?[a-z]\d{{0,2}}|⊙{PT}?))(与|和)((?:直线|线段)?(?:{SEG}|ℓ?[a-z]\d{{0,2}}|⊙{PT}?))"
         rf"的交点(?:为|是)(?:点)?({PT}){RB}", r"\1\2\3相交于点\4"),
    _sub(("交点",), rf"有(?:两个|2个)交点,?(?:分别)?(?:记为|记作|为|是)(?:点)?({PT})(?:和|与|、)(?:点)?({PT}){RB}", r"相交于点\1、\2"),
    _sub(("切点",), rf"(?:是|为)({CIRC})的切线,?切点(?:为|是)(?:点)?({PT}){RB}", r"切\1于点\2"),
    _sub(("切点",), rf"相切,?切点(?:为|是)(?:点)?({PT}){RB}", r"相切于点\1"),
    _sub(("同一",), rf"((?:{PNAME}(?:、|,|和|与)){{2,}}{PNAME})(?:三点|四点)?(?:都|均)?在同一(?:条)?直线上", r"\1共线"),
    _sub(("连接",), rf"连接({SEG})(?:、|,|和|与)({SEG}),?(?:二者|两者|它们|两线)?(?:相)?交于(?:点)?({PT}){RB}", r"连接\1、\2,\1与\2相交于点\3"),
    _sub(("平分线",), rf"({ANG})的(?:角)?平分线(?:交|与)({SEG})(?:相交)?于(?:点)?({PT}){RB}", _zh_bisector_meets),
    _sub(("切点",), rf"({SEG})(?:、|和|与)({SEG})(?:是|为)({CIRC})的(?:两条)?切线,?(?:切点(?:分别)?(?:为|是)(?:点)?({PT})(?:、|和|与)({PT})"
         rf"|({PT})(?:、|和|与)({PT})(?:分别)?(?:为|是)切点)",
         lambda m: f"{m.group(1)}、{m.group(2)}分别与{m.group(3)}相切于点{m.group(4) or m.group(6)}、{m.group(5) or m.group(7)}"),
    _sub(("切",), rf"({SEG})(?:、|和|与)({SEG})(?:分别)?切({CIRC})于(?:点)?({PT})(?:、|和|与)(?:点)?({PT})(?:两点)?",
         r"\1、\2分别与\3相切于点\4、\5"),
    _sub(("顶点",), rf"({CIRC})(?:经过|过)({POLYWORD}|△)?({POLY})的(?:三个|四个|各|所有)?顶点", r"\2\3内接于\1"),
    _sub(("延长",), rf"延长({SEG})(?:到|至)(?:点)?({PT}){RB}", r"延长\1,点\2在\1的延长线上"),
    _sub(("垂直平分",), rf"((?:直线)?(?:ℓ?[a-z]\d{{0,2}}|{SEG}))垂直平分(?:线段)?({SEG})", r"\1是\2的垂直平分线"),
    _sub(("垂直",), rf"((?:直线|线段)?)([a-z]\d{{0,2}}|ℓ[a-z]\d{{0,2}}|{SEG})(与|和)((?:直线|线段)?)([a-z]\d{{0,2}}|ℓ[a-z]\d{{0,2}}|{SEG})"
         r"(?:互相)?垂直(?!平分)", r"\1\2⊥\4\5"),
    _sub(("平行",), rf"((?:直线|线段)?)([a-z]\d{{0,2}}|{SEG})(与|和|、)((?:直线|线段)?)([a-z]\d{{0,2}}|{SEG})(?:互相)?平行(?!四边形)",
         r"\1\2∥\4\5"),
    _sub(("平行",), r"(?<=[A-Za-z0-9'ℓ⊙])(?:互相)?(?:平行于|平行)(?!四边形)", "∥"),
    _sub(("垂直",), r"(?<=[A-Za-z0-9'ℓ⊙])(?:互相)?(?:垂直于|垂直)(?!平分)", "⊥"),
    _sub(("圆心",), rf"以(?:点)?({PT})为圆心(?:的|作)圆", r"⊙\1"),
    _sub(("圆心",), rf"圆心为(?:点)?({PT})的圆", r"⊙\1"),
    _sub(("圆",), rf"(?<![外内切心])圆(?={PT}{RB})", "⊙"),
    # `过点C的切线交AB的延长线于点P`: the tangent at C is PC, and P lies on AB (its extension)
    _sub(("的切线",), rf"过(?:切)?(?:点)?({PT}){RB}(?:作)?的?(?:⊙{PT}{RB}的)?切线(?:与|交)((?:直线|线段)?{SEG})(的延长线)?(?:相)?(?:交)?于(?:点)?({PT}){RB}", _tangent_at),
    _sub(("圆",), r"(?:该|此|这个|这)圆", "⊙"),
    _sub(("弧",), rf"弧(?=(?:{PT}){{2,3}}{RB})", "⌒"),
    _sub(("直线",), r"(直线)([a-z]\d{0,2})(?![A-Za-z0-9'=(])", _lines),
    _sub(("轴",), r"([xyz])轴", r"\1-axis"),
    _sub(("直线",), r"(直线ℓ?[a-z]\d{0,2})(:[^,;与和]{1,30}?)(与|和)(直线ℓ?[a-z]\d{0,2})(:[^,;]{1,30}?)(相交于|交于)", r"\1\2,\4\5,\1\3\4\6"),
    _sub(("平面",), rf"平面(?=(?:{PT}){{3,8}}{RB}|[α-ω])", "plane "),
    _sub(("的",), rf"({ANG})的(?:度数|大小)", r"\1"),
    _sub(("直角",), rf"({ANG})(?:是|为)直角", r"\1=90°"),
    _sub(("长",), rf"({SEG})(?:的长度|的长|长度|长)(?:为|是|等于|=)", r"\1="),
    _sub(("坐标",), rf"(?:点)?({PT}){RB}的坐标(?:为|是|=|:)", r"\1="),
    _sub(("坐标",), r"(?<=[A-Za-z0-9'])的坐标(?:为|是)", "="),
    _sub(("为", "是", "等于"), r"(?:为|是|等于)" + NUMSTART, "="),
    _sub((":",), r"(?<=[\d√π]) ?: ?(?=[\d√π])", ":"),
]


# English type words inside a Chinese caption (`在triangle ABC中`, `diagonals AC与BD相交于点O`)
_MIXED_WORDS = [(re.compile(p), r) for p, r in (
    (r"(?i)(?<![A-Za-z])diagonals?(?![A-Za-z]) ?", "对角线"), (r"(?i)(?<![A-Za-z])(?:the )?triangle(?![A-Za-z]) ?(?=[A-Z])", "△"),
    (r"(?i)(?<![A-Za-z])(?:the )?circle(?![A-Za-z]) ?(?=[A-Z])", "⊙"), (r"(?i)(?<![A-Za-z])(?:line )?segments?(?![A-Za-z]) ?(?=[A-Z])", "线段"),
    (r"(?i)(?<![A-Za-z])(?:the )?(?:straight )?lines?(?![A-Za-z]) ?(?=[A-Za-z])", "直线"), (r"(?i)(?<![A-Za-z])points?(?![A-Za-z]) ?(?=[A-Z])", "点"),
    (r"(?i)(?<=的)(?:midpoints?|mid-points?)(?![A-Za-z])", "中点"), (r"(?i)(?<=的)diameters?(?![A-Za-z])", "直径"),
    (r"(?i)(?<=的)chords?(?![A-Za-z])", "弦"), (r"(?i)(?<=的)radius(?![A-Za-z])", "半径"), (r"(?i)(?<=的)tangent(?: lines?)?(?![A-Za-z])", "切线"),
    (r"(?i)(?<=的)medians?(?![A-Za-z])", "中线"), (r"(?i)(?<![A-Za-z])(?:with (?:the |its )?)?foot (?:at |is )?(?=[A-Z])", "垂足为"),
    (r"(?i)(?<![A-Za-z])(?:the )?square(?![A-Za-z]) ?(?=[A-Z])", "正方形"), (r"(?i)(?<![A-Za-z])(?:the )?rectangle(?![A-Za-z]) ?(?=[A-Z])", "矩形"),
    (r"(?i)(?<![A-Za-z])(?:the )?parallelogram(?![A-Za-z]) ?(?=[A-Z])", "平行四边形"), (r"(?i)(?<![A-Za-z])(?:the )?rhombus(?![A-Za-z]) ?(?=[A-Z])", "菱形"),
    (r"(?i)(?<![A-Za-z])(?:the )?trapezoid(?![A-Za-z]) ?(?=[A-Z])", "梯形"),
    # species words before a triangle's name (`Equilateral triangle ABC`, `作 equilateral △ADE`), `join CE`
    (r"(?i)(?<![A-Za-z])(equilateral|isosceles|right)(?![A-Za-z]) ?(?=△)",
     lambda m: {"equilateral": "等边", "isosceles": "等腰", "right": "Rt"}[m.group(1).lower()]),
    (r"(?i)(?<![A-Za-z])(?:then )?(?:join|connect)(?![A-Za-z]) ?(?=[A-Z])", "连接"),
    (r"(?i)(?<=[,;，；] )(?:the )?(?:edge|side) length (?:is |of |= ?)?(?=[0-9√])", "棱长为"),  # `正四面体ABCD, edge length 6`
    (r"(?i)(?<=[,;，；])(?:the )?(?:edge|side) length (?:is |of |= ?)?(?=[0-9√])", "棱长为"),
    (r"(?i)(?<![A-Za-z])(?:and|with|while|where)(?![A-Za-z]) ?", ","),
)]
_HAS_WORD = re.compile(r"[a-z]{3,}")
_EN_STOP = re.compile(r"\. +(?=\D)")
# `chord AB of the big circle 与小圆相切`: an English phrase between a name and its Chinese verb
_EN_APPOSITIVE = re.compile(r"(?<=[A-Z0-9'])(?: (?:of|in|on|inside) (?:the |a |an )?(?:[a-z]{1,12} ){0,2}"
                            r"(?:circle|triangle|square|rectangle|line|segment|figure)s?) ?(?=与|和|交|切|垂直|平行|⊥|∥)")
_EN_GLUE = re.compile(r"(?<![A-Za-z])([a-z]{2,}) (?=[A-Z])")  # `chord AB与…`: the English word would join the name once spaces go
# `⊙I在三角形内部,与BC相切于D,与CA相切于E`: a clause starting with 与 has the circle or line before it as its subject
_ELIDED_WITH = re.compile(rf"(?P<s>⊙{PT}{RB}|ℓ[a-z]\d{{0,2}}|直线{SEG})(?P<rest>[^;。.]{{0,80}})")


_BARE_MEETS_BEFORE = re.compile(r"(?<![A-Za-z0-9'_ℓ])([a-w]\d{0,2})(?=(?:与|和)(?:直线)?ℓ[a-w]\d{0,2}(?![A-Za-z0-9'_])(?:相)?交)")
_BARE_MEETS_AFTER = re.compile(r"(?<=ℓ[a-w])((?:\d{0,2})(?:与|和)(?:直线)?)([a-w]\d{0,2})(?![A-Za-z0-9'_])(?=(?:相)?交)")


def normalise(text: str) -> str:
    text = drop_colours_zh(solid_planes(common(text), "平面"))
    if _HAS_WORD.search(text):
        for pattern, repl in _MIXED_WORDS:
            text = pattern.sub(repl, text)
        text = _EN_GLUE.sub(r"\1,", _EN_APPOSITIVE.sub("", text))
    if ". " in text:  # an English sentence end keeps ending a sentence once spaces go (`边长为4. Extend …`)
        text = _EN_STOP.sub("。", text)
    text = apply_subs(_ZH_SUBS, text.replace(" ", ""))
    if ",与" in text:
        text = _ELIDED_WITH.sub(lambda m: m.group("s") + m.group("rest").replace(",与", f",{m.group('s')}与"), text)
    if "⊥" in text or "∥" in text:
        text = bare_line_names(text, space="")
    text = _line_names(text)
    if "ℓ" in text and "交" in text:  # `c与a交于点P` with a a line: c is one too
        meets = _BARE_MEETS_BEFORE.sub(r"ℓ\1", _BARE_MEETS_AFTER.sub(r"\1ℓ\2", text))
        if meets != text:
            text = _line_names(meets)
    return text


def _line_names(text: str) -> str:
    """Every lone occurrence of a letter the caption names as a line (`ℓa`) written as that line."""
    names = {m.group(1) for m in re.finditer(r"ℓ([a-z]\d{0,2})", text)} if "ℓ" in text else set()
    for name in sorted(names):
        text = re.sub(rf"(?<![A-Za-z0-9'_ℓ]){name}(?![A-Za-z0-9'_])", "ℓ" + name, text)
    return text


# --------------------------------------------------------------------------- rules

def _on_polygon(m: re.Match[str], b: Builder, off: int) -> None:
    kind = _POLY_KIND.get(m.group("word") or "", "triangle")
    adjs = [_ADJ[a] for a in _ADJ_RE.findall(m.group("adj") or "")]
    for name in _POLY_RE.findall(m.group("names")):
        ref = b.polygon(off + m.start(), kind, name, text=m.group(0))
        for adj in adjs:
            b.relation("property", ref, value=adj, text=m.group(0))


def _on_property(m: re.Match[str], b: Builder, off: int) -> None:
    species = m.group("sp")
    adjs = [_ADJ[a] for a in _ADJ_RE.findall(m.group("adj") or "")]
    if not species:
        return
    ref = b.polygon(off + m.start(), _POLY_KIND[species], m.group("name"), text=m.group(0))
    for adj in adjs:
        b.relation("property", ref, value=adj, text=m.group(0))


def _on_solid(m: re.Match[str], b: Builder, off: int) -> None:
    kind = solid_kind(m.group("w"))
    if kind is None:
        return
    name = cn.solid_name(kind, m.group("name") or "")
    ref = f"{kind} {name}".strip()
    if name:
        b.element(kind, name, text=m.group(0))
    else:
        b.element(kind, text=m.group(0))
    b.mention(off + m.start(), "solid", ref)
    if kind in ("sphere", "cylinder", "cone", "frustum"):
        b.mention(off + m.start(), "round", ref)


def _on_axis(m: re.Match[str], b: Builder, off: int) -> None:
    word = m.group(0)
    if word.endswith("-axis"):
        b.element("axis", word, text=word)
        return
    b.element("coordinate_system", text=word)
    if word == "坐标轴":
        b.element("axis", "x-axis", text=word)
        b.element("axis", "y-axis", text=word)


def _on_plane(m: re.Match[str], b: Builder, off: int) -> None:
    b.element("plane", cn.plane("plane " + m.group("n")), text=m.group(0))


_CURVES = {"抛物线": "parabola", "椭圆": "ellipse", "双曲线": "hyperbola"}


def _on_curve(m: re.Match[str], b: Builder, off: int) -> None:
    b.element(_CURVES[m.group(0)], text=m.group(0))


def _on_tangent_to(m: re.Match[str], b: Builder, off: int) -> None:
    x = canon(m.group("a"), b, off + m.start())
    c = canon(m.group("c"), b, off + m.start())
    p = m.group("p") or ""
    if p:
        b.point(p)
    _tangent(b, x, c, p, m.group(0))


def _on_bisects(m: re.Match[str], b: Builder, off: int) -> None:
    b.relation("angle_bisector", cn.segment(m.group("s")), value=cn.angle(m.group("ang")), text=m.group(0))


def _on_foot_named(m: re.Match[str], b: Builder, off: int) -> None:
    b.point(m.group("p"))
    b.relation("foot", m.group("p"), canon(m.group("b"), b, off + m.start()), text=m.group(0))


def _on_meets_respectively(m: re.Match[str], b: Builder, off: int) -> None:
    """`直线c分别与a、b相交于点A、B`: c meets the i-th line at the i-th point."""
    x = canon(m.group("a"), b, off + m.start())
    others = [canon(r, b, off + m.start()) for r in re.findall(OBJ_CORE, m.group("subj"))]
    pts = _PNAME_RE.findall(m.group("pts"))
    if len(others) != len(pts):
        return
    for y, p in zip(others, pts, strict=True):
        if y != x:
            b.point(p)
            b.relation("intersect", x, y, p, text=m.group(0))


def _on_intersect_unless_respectively(m: re.Match[str], b: Builder, off: int) -> None:
    if "分别" not in m.string[max(0, m.start() - 6) : m.start()]:
        _on_intersect(m, b, off)


_NAMED_BEFORE = re.compile(f"{OBJ_CORE}$")


def _on_apex_zh(m: re.Match[str], b: Builder, off: int) -> None:
    """`圆锥的顶点为P`: the apex of the cone."""
    b.point(m.group("p"))
    b.relation("apex", m.group("p"), "cone", text=m.group(0))


def _on_directrix_zh(m: re.Match[str], b: Builder, off: int) -> None:
    """`直线l是抛物线的准线`: the directrix of the one conic of its kind."""
    line = m.group("l") if m.group("l").startswith("ℓ") else "ℓ" + m.group("l")
    b.element("line", line, text=m.group(0))
    b.relation("directrix", line, {"椭圆": "ellipse", "抛物线": "parabola", "双曲线": "hyperbola"}[m.group("c")], text=m.group(0))


def _on_axis_meets_zh(m: re.Match[str], b: Builder, off: int) -> None:
    """`抛物线…与x轴交于A、B两点，与y轴交于点C`: the points lie on the axis (a named object meeting
    the axis is the intersect rule's)."""
    if _NAMED_BEFORE.search(m.string[max(0, m.start() - 24) : m.start()]):
        return
    axis = m.group("o") or m.group("o2")
    for p in _PNAME_RE.findall(m.group("pts")):
        b.point(p)
        b.relation("on", p, axis, text=m.group(0))


def _solid_ref(word: str | None, name: str | None) -> str | None:
    kind = solid_kind(word or "")
    if kind is None:
        return None
    return f"{kind} {cn.solid_name(kind, name or '')}".strip()


def _on_solid_inscribed(m: re.Match[str], b: Builder, off: int) -> None:
    """`球内切于正方体`, `正方体的内切球` (the sphere in the cube), `正方体的外接球` (the cube in the sphere)."""
    inner = _solid_ref(m.group("a") or m.group("a2") or m.group("a3"), m.group("an") or m.group("an3"))
    outer = _solid_ref(m.group("b") or m.group("b2") or m.group("b3"), m.group("bn") or m.group("bn2"))
    if inner and outer and inner != outer:
        b.relation("inscribed", inner, outer, text=m.group(0))


def _on_on_respectively(m: re.Match[str], b: Builder, off: int) -> None:
    """`点E、F分别在AB、AC上`: the i-th point on the i-th object."""
    pts = _PNAME_RE.findall(m.group("pts"))
    objs = [canon(r, b, off + m.start()) for r in re.findall(OBJ_CORE, m.group("objs"))]
    if len(pts) == len(objs):
        for p, o in zip(pts, objs, strict=True):
            if p != o:
                b.point(p)
                b.relation("on", p, o, text=m.group(0))


def _on_defined_point(m: re.Match[str], b: Builder, off: int) -> None:
    b.point(m.group("p"))


MENTION_RULES = RuleSet([
    Rule(("形",), re.compile(f"(?P<adj>{ADJ}{{0,2}})(?P<word>{POLYWORD})(?P<names>{list_of(POLY, SEP, 6)})"), _on_polygon),
    Rule(("△",), re.compile(f"(?P<adj>(?:{ADJ}|Rt){{0,2}})(?P<word>)△(?P<names>{POLY})"), _on_polygon),
    Rule(("⊙",), re.compile(CIRC), _on_circle),
    Rule(("体", "柱", "锥", "球", "圆台"), re.compile(f"(?P<w>{SOLIDWORD})(?P<name>{SOLID_NAME})?"), _on_solid),
])

ELEMENT_RULES = RuleSet([
    Rule(("线段", "边", "弦", "直径", "半径", "对角线", "中线", "高", "腰", "棱"),
         re.compile(f"(?:线段|底边|斜边|边|弦|直径|半径|对角线|中线|高线|高|腰|棱)(?P<names>{list_of(SEG, SEP, 8)})"),
         partial(_elements, "segment", _SEG_RE)),
    Rule(("连接", "连结", "联结"), re.compile(f"(?:连接|连结|联结)(?:线段)?(?P<names>{list_of(SEG, SEP, 8)})"),
         partial(_elements, "segment", _SEG_RE)),
    Rule(("直线",), re.compile(f"直线(?P<names>{list_of(f'(?:{SEG}|{LINE_NAME})', SEP, 6)})"),
         partial(_elements, "line", re.compile(f"{SEG}|{LINE_NAME}"))),
    Rule(("ℓ",), re.compile(LINE_NAME), lambda m, b, off: b.element("line", cn.ref(m.group(0)), text=m.group(0))),  # `a∥b` names lines
    Rule(("射线",), re.compile(f"射线(?P<names>{list_of(SEG, SEP, 6)})"), partial(_elements, "ray", _SEG_RE)),
    Rule(("点",), re.compile(f"(?<![中交切顶垂端原])点(?P<names>{PLIST})"), partial(_elements, "point", _PNAME_RE)),
    Rule(("∠",), re.compile(ANG), _on_angle),
    Rule(("⌒",), re.compile(ARC), _on_arc),
    Rule(("axis", "坐标"), re.compile(r"[xyz]-axis|坐标轴|坐标系"), _on_axis),
    Rule(("plane",), re.compile(f"plane (?P<n>(?:{PT}){{3,8}}{RB}|[α-ω])"), _on_plane),
    Rule(("抛物线", "椭圆", "双曲线"), re.compile("抛物线|椭圆|双曲线"), _on_curve),
])

AT = f"(?:于(?:点)?(?P<p>{PNAME}))?"
RELATION_RULES = RuleSet([
    Rule(("∥",), re.compile(f"{OBJW}{OBJ_CORE}(?:∥{OBJW}{OBJ_CORE}){{1,4}}"), partial(_pairwise, "parallel")),
    Rule(("⊥",), re.compile(f"{obj('a')}⊥{obj('b')}(?:(?:于|,垂足为|,垂足是|,交点为|,交点是)(?:点)?(?P<at>{PNAME}))?"), _on_perp),
    Rule(("垂足",), re.compile(f"(?P<p>{PNAME})(?:是|为){obj('b')}上的垂足"), _on_foot_named),
    Rule(("中点",), re.compile(f"(?:点)?(?P<pts>{PNAME})(?:是|为)(?P<segs>{OBJW}{OBJ_CORE})的?中点"), _on_midpoint),
    Rule(("中点",), re.compile(f"(?:点)?(?P<pts>{list_of(PNAME, SEP, 6)})分别(?:是|为)(?P<segs>{OBJ_LIST})的中点"), _on_midpoint),
    Rule(("中点",), re.compile(f"(?P<segs>{OBJW}{OBJ_CORE})的?中点(?:是|为)?(?:点)?(?P<pts>{PNAME})"), _on_midpoint),
    Rule(("焦点", "顶点"), re.compile(f"(?:点)?(?P<pts>{PNAME})(?:是|为)(?P<c>椭圆|抛物线|双曲线)的(?P<k>焦点|顶点)"), _on_curve_point),
    Rule(("圆锥",), re.compile(f"圆锥的(?:顶点|尖端)(?:为|是)(?:点)?(?P<p>{PNAME})"), _on_apex_zh),
    Rule(("底面",), re.compile(f"圆锥的底面(?:圆)?(?:为|是)(?P<c>⊙{PNAME})"),
         lambda m, b, off: b.relation("base", b.circle_ref(m.group("c"), off + m.start()), "cone", text=m.group(0))),
    Rule(("准线",), re.compile("直线(?P<l>ℓ?[a-z]\\d{0,2})是(?P<c>椭圆|抛物线|双曲线)的准线"), _on_directrix_zh),
    Rule(("椭圆", "抛物线", "双曲线"), re.compile(f"(?:点)?(?P<pts>{PLIST})(?:都|均)?(?:在|是|为)(?P<c>椭圆|抛物线|双曲线)(?:[^,;。上]{{1,30}})?上"),
         _on_curve_point),
    Rule(("在",), re.compile(f"(?:点)?(?P<pts>{list_of(PNAME + COORDS, SEP, 10)})(?:都|均|分别)?在{obj('o')}(?:的延长线)?上"), _on_on),
    Rule(("上",), re.compile(f"(?:点)?(?P<pts>{PLIST})(?:是|为){obj('o')}(?:的延长线)?上(?:的)?(?:一|任意一|一个)?动?点"), _on_on),
    Rule(("过",), re.compile(f"{obj('o')}(?:经过|过)(?:点)?(?P<pts>{PLIST})"), _on_on),
    Rule(("共线",), re.compile(f"(?:点)?(?P<pts>{PLIST})(?:[三四五]点)?共线"), _on_collinear),
    Rule(("交",), re.compile(f"{obj('a')}(?:与|和|、|,(?=(?:线段|直线)?{SEG}(?:相交于|交于))){obj('b')}(?:相交于|交于)(?:点)?(?P<pts>{PTS3})"),
         _on_intersect_unless_respectively),
    Rule(("交",), re.compile(f"{obj('a')}交{obj('b')}于(?:点)?(?P<pts>{PTS3})"), _on_intersect),
    Rule(("交点",), re.compile(f"(?P<pts>{PNAME})(?:是|为){obj('a')}(?:与|和){obj('b')}的交点"), _on_intersect),
    Rule(("切",), re.compile(f"{obj('a')}(?:与|和){obj('c')}相切{AT}"), _on_tangent_to),
    Rule(("切",), re.compile(f"{obj('a')}切{obj('c')}于(?:点)?(?P<p>{PNAME})"), _on_tangent_to),
    Rule(("分别",), re.compile(f"(?P<subj>{OBJ_LIST})分别(?:与|和){obj('c')}相切于(?:点)?(?P<pts>{PTS3})"),
         _on_tangents_respectively),
    Rule(("切线",), re.compile(f"{obj('a')}(?:是|为){obj('c')}的切线{AT}"), _on_tangent_to),
    Rule(("分别",), re.compile(f"{obj('c')}(?:与|和)(?P<subj>{OBJ_LIST})分别相切于(?:点)?(?P<pts>{list_of(PNAME, SEP, 4)})"),
         _on_tangents_respectively),
    Rule(("分别",), re.compile(f"(?:点)?(?P<pts>{list_of(PNAME, SEP, 4)})分别(?:在|是)(?P<objs>{OBJ_LIST})(?:上|上的点)"), _on_on_respectively),
    Rule(("外切", "内切"), re.compile(f"{obj('a')}(?:与|和){obj('b')}(?:外切|内切){AT}"), _on_tangent_pair),
    Rule(("弦", "直径", "半径"),
         re.compile(f"(?P<segs>{list_of(SEG, SEP, 4)})(?:是|为)(?:{obj('c')}的?)?(?P<role>弦|直径|半径)"), _on_circle_role),
    Rule(("垂直平分线", "中垂线"),
         re.compile(f"(?P<l>ℓ[a-z]\\d{{0,2}}|{SEG})(?:是|为)(?:线段)?(?P<s>{SEG})的(?:垂直平分线|中垂线)"), _on_perp_bisector),
    Rule(("弦", "直径"),  # `⊙O，弦AB=8`: a chord or diameter of the circle in context
         re.compile(f"(?:^|(?<=[,;:]))(?:(?:一条|有一条)?(?:长为[^,;的]{{1,8}}的)?)(?P<c>)(?P<role>弦|直径)(?P<segs>{SEG})"), _on_circle_role),
    Rule(("弦", "直径", "半径"), re.compile(f"{obj('c')}的(?P<role>弦|直径|半径)(?:为|是)?(?P<segs>{list_of(SEG, SEP, 4)})"),
         _on_circle_role),
    Rule(("弦",), re.compile(f"(?P<c>⊙[{BIG}{SMALL}])(?P<role>弦)(?P<segs>{SEG})"), _on_circle_role),
    Rule(("内切", "外接", "内接"),
         re.compile(f"(?P<a>{SOLIDWORD})(?P<an>{SOLID_NAME})?(?:内切|内接)于(?P<b>{SOLIDWORD})(?P<bn>{SOLID_NAME})?"
                    f"|(?P<b2>{SOLIDWORD})(?P<bn2>{SOLID_NAME})?的内切(?P<a2>球)|(?P<a3>{SOLIDWORD})(?P<an3>{SOLID_NAME})?的外接(?P<b3>球)"),
         _on_solid_inscribed),
    Rule(("同心",), re.compile(f"(?P<a>⊙{BIG})与(?P<b>⊙{SMALL})同心"), _on_concentric_pair),
    Rule(("分别",), re.compile(f"{obj('a')}分别(?:(?:与|和)|(?=交))(?:交)?{OBJW}(?P<subj>{list_of(OBJW + OBJ_CORE, SEP, 3)})(?:相)?交?于(?:点)?"
                               f"(?P<pts>{PTS3})"), _on_meets_respectively),
    Rule((",交",), re.compile(f"{obj('a')}交{obj('b')}于(?:点)?(?P<pts>{PNAME}),交{obj('b2')}于(?:点)?(?P<p2>{PNAME})"), _on_intersect),
    Rule(("axis",), re.compile(f"(?:与(?P<o>[xyz]-axis)(?:相)?交于|交(?P<o2>[xyz]-axis)于)(?:点)?(?P<pts>{PTS3})"),
         _on_axis_meets_zh),
    Rule(("中线", "高", "平分线", "对角线"),
         re.compile(f"(?<![=∥⊥])(?P<segs>{list_of(SEG, SEP, 4)})(?:是|为)[^,.;=]{{0,16}}?的(?P<role>中线|高线|高|角平分线|平分线|对角线)"),
         _on_segment_role),
    Rule(("对角线", "中线", "高线", "平分线"),
         re.compile(f"(?P<role>对角线|中线|高线|角平分线)(?P<segs>{list_of(SEG, SEP, 4)})"), _on_segment_role),
    Rule(("平分",), re.compile(f"(?P<s>{SEG})平分(?P<ang>{ANG})"), _on_bisects),
    Rule(("平分",), re.compile(f"(?P<a>{SEG})平分{ANG},?交{obj('b')}于(?:点)?(?P<pts>{PNAME})"), _on_intersect),
    Rule(("心",), re.compile(f"(?:点)?(?P<p>{PNAME})(?:是|为){obj('s')}的(?P<k>外心|内心|重心|垂心|中心|圆心)"), _on_centre),
    Rule(("内", "外"), re.compile(f"(?:点)?(?P<p>{PNAME})(?:在|是|位于){obj('s')}的?(?P<w>内部|内|外部|外)(?![接切心角])"), _on_inside),
    Rule(("内接",), re.compile(f"{obj('a')}内接于{obj('b')}"), partial(_on_inscribed, False)),
    Rule(("外切于",), re.compile(f"{obj('a')}外切于{obj('b')}"), partial(_on_inscribed, True)),
    Rule(("外接圆", "内切圆"), re.compile(f"{obj('a')}(?:是|为){obj('b')}的(?P<w>外接圆|内切圆)"),
         _on_named_circle_of),
    Rule(("外接圆", "内切圆"), re.compile(f"{obj('b')}的(?P<w>外接圆|内切圆)(?P<c>{CIRC})?"), _on_circle_of),
    Rule(("≅", "∼"), re.compile(f"{obj('a')}(?P<r>[≅∼]){obj('b')}"), _on_congruent),
    Rule(("全等", "相似"), re.compile(f"{obj('a')}(?:与|和){obj('b')}(?:是|为)?(?:互相)?(?P<r>全等|相似)"), _on_congruent),
    Rule(("心",), re.compile(f"{obj('s')}的(?P<k>外心|内心|重心|垂心)(?:为|是)(?:点)?(?P<p>{PNAME})"), _on_centre),
    Rule(("相等",), re.compile(f"{obj('a')}(?:与|和){obj('b')}相等"), _on_equal_words),
    Rule(("是", "为"),
         re.compile(f"(?:三角形|四边形|多边形|△)?(?P<name>{POLY})(?:是|为)(?:[^,.;。]{{1,12}}?的)?(?P<adj>{ADJ}{{0,3}})(?P<sp>{POLYWORD})"),
         _on_property),
    Rule(("原点",), re.compile(f"原点(?P<p>{PNAME})|(?P<q>{PNAME})(?:是|为)(?:坐标)?原点"), _on_origin),
    Rule(("(",), re.compile(f"(?P<p>{PNAME})=?\\((?P<x>{NUMC}),(?P<y>{NUMC})(?:,(?P<z>{NUMC}))?\\)"), _on_coordinate),
    Rule(("交点", "切点", "垂足", "顶点"), re.compile(f"(?:交点|切点|垂足|顶点)(?:为|是)?(?:点)?(?P<p>{PNAME})"), _on_defined_point),
])


_QTY = {"半径": ("radius", 1.0), "直径": ("radius", 0.5), "边长": ("side_length", 1.0), "棱长": ("side_length", 1.0),
        "面积": ("area", 1.0), "周长": ("perimeter", 1.0), "体积": ("volume", 1.0), "表面积": ("surface_area", 1.0),
        "侧面积": ("lateral_area", 1.0), "高": ("height", 1.0), "母线长": ("slant_height", 1.0)}
_QTY_CONTEXT = {"radius": ("circle", "round"), "side_length": ("polygon", "solid"), "area": ("polygon", "circle", "solid"),
                "perimeter": ("polygon", "circle"), "volume": ("solid",), "surface_area": ("solid",),
                "lateral_area": ("solid",), "height": ("solid", "polygon"), "slant_height": ("solid",)}
QTY_PATTERN = (
    f"(?:(?P<qword>{SOLIDWORD}|{POLYWORD})?(?P<qname>{CIRC}|△{POLY}|{SOLID_NAME})?的)?"
    "(?P<qk>表面积|侧面积|半径|直径|边长|棱长|面积|周长|体积|母线长|高)"
)


def resolve_qty(m: re.Match[str], b: Builder, pos: int) -> tuple[str, str, float] | None:
    kind, scale = _QTY[m.group("qk")]
    word = m.group("qword") or ""
    name = m.group("qname") or ""
    if name.startswith("⊙"):
        return kind, b.circle_ref(name, pos), scale
    solid = solid_kind(word) if word else None
    if solid is not None:
        canon_name = cn.solid_name(solid, name)
        return kind, f"{solid} {canon_name}".strip() if canon_name else b.context(pos, ("solid",)) or solid, scale
    if name:
        return kind, cn.ref(name), scale
    if m.group("qk") == "棱长":  # an edge length: a polyhedron's, never a sphere's, cone's or cylinder's
        return kind, b.context(pos, ("solid",), skip=("sphere", "cone", "cylinder")) or b.context(pos, _QTY_CONTEXT[kind]), scale
    return kind, b.context(pos, _QTY_CONTEXT[kind]) or ("⊙" if b.unnamed_circle and "circle" in _QTY_CONTEXT[kind] else ""), scale


GRAMMAR = TermGrammar(QTY_PATTERN, resolve_qty)


def parse_zh(text: str) -> KeypointSet:
    """Keypoints of a Chinese caption (same keypoint rules as `parse_en`)."""
    text = normalise(text)
    pieces = sentences(text)
    builder = Builder()
    low = text.lower()
    run_rules(MENTION_RULES, pieces, builder, low)
    run_rules(ELEMENT_RULES, pieces, builder, low)
    kept = affirmed(pieces)
    run_rules(RELATION_RULES, kept, builder, low)
    denied_segments(pieces, kept, builder)
    for offset, sentence in pieces:
        if "=" in sentence:
            equations(sentence, offset, GRAMMAR, builder)
    return builder.finish()
