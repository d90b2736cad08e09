#!/usr/bin/python3
"""Renders camera photos of identity documents with machine-readable zones (MRZ) for benchmarks.

  make-mrz-set.py --out DIR [--count 520] [--seed 27] [--real N] [--jobs 2]
      A set: DIR/images/NNNN.jpg|png (and rNNNN for the real-looking split) and DIR/manifest.json
      (see Benchmarks/mrz/README.md).
  make-mrz-set.py --document --lines LINE1 LINE2 [LINE3] --out FILE.png|jpg [--seed N]
                  [--quality good|hard]
      One frame of a document with the given MRZ (2 x 44: passport, 2 x 36: TD2, 3 x 30: ID card).

Every frame is 1920 x 1080: a textured surface (wood, fabric, tablecloth, dark cloth, light desk,
paper clutter), on it a passport data page, TD2 document or ID card drawn at ICAO 9303 sizes
(tinted security background with guilloche waves and rosettes, photo placeholder, title, labelled
fields in DejaVu Sans, the MRZ in OCR-B at 10 characters per 25.4 mm at the ICAO position),
seen by a camera: rotated, tilted, blurred, unevenly lit, noisy, colour cast, sometimes dim or with
a specular glare on the laminate, saved as JPEG or PNG. Every random number comes from generators
seeded with (seed, image index), so the same arguments give the same bytes, whatever the number
of worker processes.

Needs Debian's python3-pil, python3-numpy, fonts-ocr-b and fonts-dejavu-core
(MRZ_BENCH_PACKAGES in scripts/lib/packages.sh).
"""

import argparse
import datetime
import json
import math
import multiprocessing
import os
import random
import sys
import time

import numpy as np
from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont

FRAME_W, FRAME_H = 1920, 1080
OCRB = "/usr/share/fonts/opentype/ocr-b/OCRB.otf"
DEJAVU = "/usr/share/fonts/truetype/dejavu/"
SANS = {
    "regular": DEJAVU + "DejaVuSans.ttf",
    "bold": DEJAVU + "DejaVuSans-Bold.ttf",
    "condensed": DEJAVU + "DejaVuSansCondensed.ttf",
    "condensed-bold": DEJAVU + "DejaVuSansCondensed-Bold.ttf",
    "oblique": DEJAVU + "DejaVuSans-Oblique.ttf",
}
OCRB_CAP = 0.723  # cap height of OCRB.otf, in ems
SANS_CAP = 0.729  # cap height of DejaVu Sans, in ems
PITCH_MM = 25.4 / 10  # ICAO: 10 characters per 25.4 mm

# Document sizes (mm), MRZ shape, and the MRZ's place: left margin of the first character and the
# centre line of the last line above the bottom edge, line spacing (typical of issued documents,
# close to Doc 9303's print positions; each document varies them a little).
FORMATS = {
    "TD3": {"size": (125.0, 88.0), "lines": 2, "chars": 44, "left": 6.0, "bottom": 7.6, "spacing": 5.9},
    "TD2": {"size": (105.0, 74.0), "lines": 2, "chars": 36, "left": 6.0, "bottom": 6.8, "spacing": 5.2},
    "TD1": {"size": (85.6, 54.0), "lines": 3, "chars": 30, "left": 4.4, "bottom": 5.4, "spacing": 4.35},
}
SHAPES = {(2, 44): "TD3", (2, 36): "TD2", (3, 30): "TD1"}
MRZ_ALPHABET = set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<")
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
DIGITS = "0123456789"

# ---------------------------------------------------------------------------------------------
# ICAO 9303 check digits and zones


def char_value(c):
    """ICAO 9303 value of an MRZ character: digits as such, A-Z 10..35, the filler 0."""
    if "0" <= c <= "9":
        return ord(c) - 48
    if "A" <= c <= "Z":
        return ord(c) - 55
    if c == "<":
        return 0
    raise ValueError("not an MRZ character: %r" % c)


def check_digit(text):
    """The check digit of text: weights 7, 3, 1 repeating, sum modulo 10."""
    return str(sum(char_value(c) * (7, 3, 1)[i % 3] for i, c in enumerate(text)) % 10)


def mrz_name(surname, given, width):
    """The name field: primary identifier, <<, secondary identifiers, truncated or filled."""
    text = surname + ("<<" + given if given else "")
    return text[:width].ljust(width, "<")


def yymmdd(d):
    return d.strftime("%y%m%d")


def make_lines(fmt, p):
    """The MRZ lines of person/document p (see random_person) in format fmt."""
    number = p["number"].ljust(9, "<")
    number_cd = check_digit(number)
    birth, expiry = yymmdd(p["birth"]), yymmdd(p["expiry"])
    issuer, nationality = p["issuer"].ljust(3, "<"), p["nationality"].ljust(3, "<")
    if fmt == "TD3":
        personal = p["personal"].ljust(14, "<")
        personal_cd = check_digit(personal) if p["personal"] else p["empty_cd"]
        line1 = p["code"] + issuer + mrz_name(p["surname_mrz"], p["given_mrz"], 39)
        line2 = number + number_cd + nationality + birth + check_digit(birth) + p["sex"]
        line2 += expiry + check_digit(expiry) + personal + personal_cd
        line2 += check_digit(line2[0:10] + line2[13:20] + line2[21:43])
        return [line1, line2]
    if fmt == "TD2":
        line1 = p["code"] + issuer + mrz_name(p["surname_mrz"], p["given_mrz"], 31)
        line2 = number + number_cd + nationality + birth + check_digit(birth) + p["sex"]
        line2 += expiry + check_digit(expiry) + p["optional1"].ljust(7, "<")
        line2 += check_digit(line2[0:10] + line2[13:20] + line2[21:35])
        return [line1, line2]
    line1 = p["code"] + issuer + number + number_cd + p["optional1"].ljust(15, "<")
    line2 = birth + check_digit(birth) + p["sex"] + expiry + check_digit(expiry) + nationality
    line2 += p["optional2"].ljust(11, "<")
    line2 += check_digit(line1[5:30] + line2[0:7] + line2[8:15] + line2[18:29])
    line3 = mrz_name(p["surname_mrz"], p["given_mrz"], 30)
    return [line1, line2, line3]


def mrz_shape(lines):
    """The format of lines (TD1, TD2, TD3), or None when they are not an MRZ's shape."""
    if any(set(line) - MRZ_ALPHABET for line in lines):
        return None
    lengths = {len(line) for line in lines}
    if len(lengths) != 1:
        return None
    return SHAPES.get((len(lines), lengths.pop()))


# ---------------------------------------------------------------------------------------------
# Random people and documents

COUNTRIES = [
    ("D", "FEDERAL REPUBLIC OF GERMANY", "BUNDESREPUBLIK DEUTSCHLAND"),
    ("GBR", "UNITED KINGDOM OF GREAT BRITAIN AND NORTHERN IRELAND", ""),
    ("FRA", "RÉPUBLIQUE FRANÇAISE", "FRENCH REPUBLIC"),
    ("UTO", "UTOPIA", ""),
    ("USA", "UNITED STATES OF AMERICA", ""),
    ("CAN", "CANADA", ""),
    ("ITA", "REPUBBLICA ITALIANA", "ITALIAN REPUBLIC"),
    ("ESP", "REINO DE ESPAÑA", "KINGDOM OF SPAIN"),
    ("NLD", "KONINKRIJK DER NEDERLANDEN", "KINGDOM OF THE NETHERLANDS"),
    ("BEL", "ROYAUME DE BELGIQUE", "KINGDOM OF BELGIUM"),
    ("AUT", "REPUBLIK ÖSTERREICH", "REPUBLIC OF AUSTRIA"),
    ("CHE", "SCHWEIZERISCHE EIDGENOSSENSCHAFT", "SWISS CONFEDERATION"),
    ("POL", "RZECZPOSPOLITA POLSKA", "REPUBLIC OF POLAND"),
    ("SWE", "KONUNGARIKET SVERIGE", "KINGDOM OF SWEDEN"),
    ("NOR", "KONGERIKET NORGE", "KINGDOM OF NORWAY"),
    ("DNK", "KONGERIGET DANMARK", "KINGDOM OF DENMARK"),
    ("FIN", "SUOMI FINLAND", "REPUBLIC OF FINLAND"),
    ("IRL", "ÉIRE", "IRELAND"),
    ("PRT", "REPÚBLICA PORTUGUESA", "PORTUGUESE REPUBLIC"),
    ("GRC", "ΕΛΛΗΝΙΚΗ ΔΗΜΟΚΡΑΤΙΑ", "HELLENIC REPUBLIC"),
    ("CZE", "ČESKÁ REPUBLIKA", "CZECH REPUBLIC"),
    ("HUN", "MAGYARORSZÁG", "HUNGARY"),
    ("ROU", "ROMÂNIA", "ROMANIA"),
    ("HRV", "REPUBLIKA HRVATSKA", "REPUBLIC OF CROATIA"),
    ("SVN", "REPUBLIKA SLOVENIJA", "REPUBLIC OF SLOVENIA"),
    ("EST", "EESTI VABARIIK", "REPUBLIC OF ESTONIA"),
    ("LTU", "LIETUVOS RESPUBLIKA", "REPUBLIC OF LITHUANIA"),
    ("LUX", "GRAND-DUCHÉ DE LUXEMBOURG", "GRAND DUCHY OF LUXEMBOURG"),
    ("ISL", "ÍSLAND", "ICELAND"),
    ("TUR", "TÜRKİYE CUMHURİYETİ", "REPUBLIC OF TÜRKIYE"),
    ("UKR", "УКРАЇНА", "UKRAINE"),
    ("JPN", "JAPAN", ""),
    ("KOR", "REPUBLIC OF KOREA", ""),
    ("CHN", "PEOPLE'S REPUBLIC OF CHINA", ""),
    ("IND", "REPUBLIC OF INDIA", ""),
    ("PAK", "ISLAMIC REPUBLIC OF PAKISTAN", ""),
    ("IDN", "REPUBLIK INDONESIA", "REPUBLIC OF INDONESIA"),
    ("MYS", "MALAYSIA", ""),
    ("SGP", "REPUBLIC OF SINGAPORE", ""),
    ("THA", "KINGDOM OF THAILAND", ""),
    ("VNM", "SOCIALIST REPUBLIC OF VIET NAM", ""),
    ("PHL", "REPUBLIC OF THE PHILIPPINES", ""),
    ("AUS", "AUSTRALIA", ""),
    ("NZL", "NEW ZEALAND", ""),
    ("BRA", "REPÚBLICA FEDERATIVA DO BRASIL", "FEDERATIVE REPUBLIC OF BRAZIL"),
    ("ARG", "REPÚBLICA ARGENTINA", "ARGENTINE REPUBLIC"),
    ("MEX", "ESTADOS UNIDOS MEXICANOS", "UNITED MEXICAN STATES"),
    ("CHL", "REPÚBLICA DE CHILE", "REPUBLIC OF CHILE"),
    ("COL", "REPÚBLICA DE COLOMBIA", "REPUBLIC OF COLOMBIA"),
    ("PER", "REPÚBLICA DEL PERÚ", "REPUBLIC OF PERU"),
    ("ZAF", "REPUBLIC OF SOUTH AFRICA", ""),
    ("NGA", "FEDERAL REPUBLIC OF NIGERIA", ""),
    ("KEN", "REPUBLIC OF KENYA", ""),
    ("EGY", "ARAB REPUBLIC OF EGYPT", ""),
    ("MAR", "ROYAUME DU MAROC", "KINGDOM OF MOROCCO"),
    ("TUN", "RÉPUBLIQUE TUNISIENNE", "TUNISIAN REPUBLIC"),
    ("SAU", "KINGDOM OF SAUDI ARABIA", ""),
    ("ARE", "UNITED ARAB EMIRATES", ""),
    ("ISR", "STATE OF ISRAEL", ""),
    ("GHA", "REPUBLIC OF GHANA", ""),
    ("ZWE", "REPUBLIC OF ZIMBABWE", ""),
    ("BOL", "ESTADO PLURINACIONAL DE BOLIVIA", "PLURINATIONAL STATE OF BOLIVIA"),
    ("BIH", "BOSNA I HERCEGOVINA", "BOSNIA AND HERZEGOVINA"),
    ("SOM", "FEDERAL REPUBLIC OF SOMALIA", ""),
    ("GBD", "BRITISH OVERSEAS TERRITORIES", ""),
    ("XXA", "STATELESS PERSON", ""),
    ("UNO", "UNITED NATIONS ORGANIZATION", ""),
    ("EUE", "EUROPEAN UNION", ""),
]
COUNTRY_NAMES = {code: (name, second) for code, name, second in COUNTRIES}
NATIONALITY_WORDS = {
    "D": "DEUTSCH", "GBR": "BRITISH CITIZEN", "FRA": "FRANÇAISE", "UTO": "UTOPIAN", "USA": "UNITED STATES",
    "CAN": "CANADIAN/CANADIENNE", "ITA": "ITALIANA", "ESP": "ESPAÑOLA", "NLD": "NEDERLANDSE", "XXA": "STATELESS",
}
# Names as printed (with diacritics); the MRZ form comes from transliterate().
SURNAMES = [
    "MÜLLER", "SCHMIDT", "SCHNEIDER", "FISCHER", "WEBER", "MEYER", "WAGNER", "BECKER", "HOFFMANN", "SCHÄFER",
    "SMITH", "JONES", "WILLIAMS", "TAYLOR", "BROWN", "DAVIES", "EVANS", "O'BRIEN", "MACDONALD", "WRIGHT",
    "MARTIN", "BERNARD", "DUBOIS", "LEFÈVRE", "GIRARD", "MOREAU", "FRANÇOIS", "ROUSSEAU", "FONTAINE",
    "ROSSI", "RUSSO", "FERRARI", "ESPOSITO", "BIANCHI", "ROMANO", "COLOMBO", "RICCI", "BOZZI", "DE LUCA",
    "GARCÍA LÓPEZ", "MARTÍNEZ", "RODRÍGUEZ DE LA CRUZ", "FERNÁNDEZ", "SÁNCHEZ", "PÉREZ GÓMEZ", "NÚÑEZ",
    "VAN DER BERG", "DE JONG", "JANSEN", "VAN DEN BROEK", "DE VRIES", "VAN ROSSUM", "VERMEULEN",
    "KOWALSKI", "NOWAK", "WIŚNIEWSKA", "WÓJCIK", "ZIOBRO", "SOBIESKI", "KACZMAREK", "LEWANDOWSKI",
    "NAGY", "KOVÁCS", "SZOBOSZLAI", "BÖSZÖRMÉNYI", "TÓTH", "SZABÓ", "HORVÁTH",
    "ANDERSSON", "JOHANSSON", "NILSSON", "ERIKSSON", "HANSEN", "JENSEN", "NIELSEN", "KORHONEN", "VIRTANEN",
    "GUÐMUNDSDÓTTIR", "JÓNSSON", "PAPADOPOULOU", "GEORGIOU", "NOVÁK", "DVOŘÁKOVÁ", "POPESCU", "IONESCU",
    "YILMAZ", "KAYA", "DEMİR", "ŞAHİN", "SHEVCHENKO", "KOVALENKO", "BONDARENKO",
    "SATO", "SUZUKI", "TAKAHASHI", "KIM", "LEE", "PARK", "WANG", "LI", "ZHANG", "LIU", "CHEN",
    "NGUYEN", "TRAN", "PHAM", "SANTOS", "REYES", "DELA CRUZ", "BAUTISTA",
    "SHARMA", "PATEL", "SINGH", "VENKATANARASIMHARAJUVARIPETA", "SRISUWANNAKORN", "CHAROENKIATKUL",
    "KHAN", "HUSSAIN", "AL-HASHIMI", "BIN ABDULLAH", "EL AMRANI", "BEN SALEM", "ABDEL RAHMAN",
    "OKONKWO", "OBIOZOR", "ADEYEMI", "MENSAH", "OTIENO", "MOYO", "DLAMINI", "NKOSI",
    "DA SILVA", "OLIVEIRA", "SOUZA", "FERREIRA", "GONZÁLEZ", "HERNÁNDEZ", "RAMÍREZ FLORES",
    "COHEN", "LEVI", "MIZRAHI", "WOLFESCHLEGELSTEINHAUSENBERGERDORFF", "MOUNTBATTEN-WINDSOR",
    "MUELLER-LUEDENSCHEIDT", "ERIKSSON", "ISIBOR", "ZSIGMOND", "OSBOURNE",
]
GIVEN_NAMES = [
    "ANNA MARIA", "JEAN-PIERRE", "MARIA DEL CARMEN", "JOSÉ LUIS", "KARL-HEINZ", "ANNE-SOPHIE", "MOHAMMED ALI",
    "THOMAS", "SARAH", "MICHAEL JAMES", "EMMA", "OLIVER", "CHARLOTTE", "LUCAS", "SOFIA", "LUKAS", "LEONIE",
    "MATTEO", "GIULIA", "ALESSANDRO", "FRANCESCA", "HUGO", "CHLOÉ", "LÉA", "ZOÉ", "JÜRGEN", "BJÖRN", "SØREN",
    "PIOTR", "AGNIESZKA", "ŁUKASZ", "ZSOLT", "SZILVIA", "BOŽIDAR", "IOSIF", "IOANA", "OBINNA", "BISI",
    "CHUKWUEMEKA", "ADAEZE", "KWAME", "AMARA", "THABO", "NOMVULA", "WANJIRU", "MOHAMED", "FATIMA ZAHRA",
    "AHMED", "AISHA", "YUSUF", "LEILA", "OMAR", "HIROSHI", "YUKI", "JI-HOON", "SEO-YEON", "WEI", "XIAOMING",
    "MEI LING", "THI HUONG", "VAN MINH", "MARIA CRISTINA", "JUAN CARLOS", "LUCÍA", "JOÃO PEDRO", "ANA BEATRIZ",
    "PRIYA", "ARJUN KUMAR", "RAHUL", "SUNITA", "SOMCHAI", "NATTAYA", "OLENA", "OLEKSANDR", "DMYTRO",
    "ELIF", "MEHMET", "GUÐRÚN", "SIGURÐUR", "ASTRID", "NIKOLAOS", "ELENI", "JAN", "EVA", "TOMÁŠ",
    "ALEXANDER MAXIMILIAN FRIEDRICH", "CHRISTOPHER JOHN PAUL", "MARIE-ÈVE", "ISABELLA ROSE", "ZBIGNIEW",
    "OZZIE", "BOBBI", "SIOBHÁN", "ZOLTÁN", "ISIDORO",
]
# Letters OCR confuses with digits, for document numbers and names that test the reader's repairs.
CONFUSABLE_SURNAMES = ["ZIOBRO", "SZOBOSZLAI", "OBIOZOR", "BOZZI", "SOBIESKI", "BOSZORMENYI", "ZSIGMOND", "ISIBOR"]
CONFUSABLE_GIVEN = ["ZSOLT", "BOZIDAR", "IOSIF", "SZILVIA", "OBI", "BISI", "OZZIE", "ZOE ISOBEL"]
CITIES = [
    "BERLIN", "MÜNCHEN", "LONDON", "MANCHESTER", "PARIS", "LYON", "ROMA", "MILANO", "MADRID", "SEVILLA",
    "AMSTERDAM", "BRUXELLES", "WIEN", "ZÜRICH", "WARSZAWA", "KRAKÓW", "STOCKHOLM", "OSLO", "KØBENHAVN",
    "HELSINKI", "DUBLIN", "LISBOA", "ATHINA", "PRAHA", "BUDAPEST", "BUCUREȘTI", "ZAGREB", "ISTANBUL",
    "KYIV", "TOKYO", "SEOUL", "BEIJING", "MUMBAI", "KARACHI", "JAKARTA", "MANILA", "SYDNEY", "AUCKLAND",
    "SÃO PAULO", "BUENOS AIRES", "CIUDAD DE MÉXICO", "LAGOS", "NAIROBI", "CAIRO", "CASABLANCA", "ACCRA",
    "HARARE", "LA PAZ", "SARAJEVO", "MOGADISHU", "CITY OF AUCKLAND", "SANKT PÖLTEN", "VILLENEUVE-D'ASCQ",
]
STREETS = ["HAUPTSTRASSE", "RUE DE LA PAIX", "HIGH STREET", "VIA ROMA", "CALLE MAYOR", "KERKSTRAAT",
           "ULICA DŁUGA", "STORGATAN", "MAIN ROAD", "AVENIDA PAULISTA", "BAHNHOFSTRASSE", "CHEMIN DES VIGNES"]
TRANSLIT = {
    "Ä": "AE", "Ö": "OE", "Ü": "UE", "ß": "SS", "Å": "AA", "Æ": "AE", "Ø": "OE", "Ð": "D", "Þ": "TH",
    "Ł": "L", "Œ": "OE", "İ": "I", "Ş": "S", "Ğ": "G", "Ț": "T", "Ș": "S",
}
PLAIN = str.maketrans(
    "ÀÁÂÃÈÉÊËÌÍÎÏÒÓÔÕÙÚÛÝÑÇŚŻŹĆŃĘĄŘŠŽČĎŤŇĚŮÐ",
    "AAAAEEEEIIIIOOOOUUUYNCSZZCNEARSZCDTNEUD",
)


def transliterate(name):
    """The MRZ form of a printed name: ICAO transliteration, separators as <, nothing else."""
    out = "".join(TRANSLIT.get(c, c) for c in name.upper()).translate(PLAIN)
    out = out.replace("'", "").replace("-", "<").replace(" ", "<").replace(",", "")
    return "".join(c for c in out if c in MRZ_ALPHABET)


def random_date(r, start, end):
    return start + datetime.timedelta(days=r.randint(0, (end - start).days))


def add_years(d, years):
    try:
        return d.replace(year=d.year + years)
    except ValueError:  # 29 February
        return d.replace(year=d.year + years, day=28)


def document_number(r, style):
    if style == "letter+8":
        return r.choice("CFGHJKLMNPRTVWXYZ") + "".join(r.choice(DIGITS + "CFGHJKLMNPRTVWXYZ") for _ in range(8))
    if style == "2letters+7":
        return r.choice(LETTERS) + r.choice(LETTERS) + "".join(r.choice(DIGITS) for _ in range(7))
    if style == "9digits":
        return "".join(r.choice(DIGITS) for _ in range(9))
    if style == "short":
        length, letters = r.randint(5, 8), r.randint(0, 2)
        return "".join(r.choice(LETTERS if i < letters else DIGITS) for i in range(length))
    if style == "confusable":
        return "".join(r.choice("OBSZI" if r.random() < 0.5 else "08521") for _ in range(r.randint(7, 9)))
    return "".join(r.choice(LETTERS + DIGITS) for _ in range(9))


def random_person(r, fmt, confusable=False):
    """A random holder and document for format fmt; the MRZ fields and the printed ones."""
    issuer = r.choice(COUNTRIES)[0]
    nationality = issuer if r.random() < 0.85 else r.choice(COUNTRIES)[0]
    if confusable:
        surname, given = r.choice(CONFUSABLE_SURNAMES), r.choice(CONFUSABLE_GIVEN)
        style = "confusable"
        issuer = r.choice(["ZWE", "BOL", "BIH", "SOM", "ISR", "ISL", "BEL", "SVN"])
    else:
        surname = r.choice(SURNAMES)
        if r.random() < 0.12:
            surname += r.choice([" ", "-"]) + r.choice(SURNAMES)
        given = " ".join(r.sample(GIVEN_NAMES, r.choice([1, 1, 1, 2, 2, 3])))
        if r.random() < 0.04:
            given = ""
        style = r.choice(["letter+8", "2letters+7", "9digits", "mixed", "short", "2letters+7", "letter+8"])
    birth = random_date(r, datetime.date(1932, 1, 1), datetime.date(2021, 12, 31))
    first_issue = max(birth + datetime.timedelta(days=30), datetime.date(2013, 1, 1))
    issued = random_date(r, first_issue, datetime.date(2025, 6, 30))
    expiry = add_years(issued, r.choice([5, 10, 10, 6, 3])) - datetime.timedelta(days=1)
    p = {
        "issuer": issuer, "nationality": nationality, "surname": surname, "given": given,
        "surname_mrz": transliterate(surname), "given_mrz": transliterate(given),
        "number": document_number(r, style), "birth": birth, "issued": issued, "expiry": expiry,
        "sex": r.choices("MF<", (48, 48, 4))[0], "place": r.choice(CITIES),
        "personal": "", "empty_cd": r.choice("<0"), "optional1": "", "optional2": "",
        "authority": r.choice(["MINISTRY OF INTERIOR", "HM PASSPORT OFFICE", "PRÉFECTURE", "STADT KÖLN",
                               "DIRECCIÓN GENERAL DE LA POLICÍA", "CONSULATE GENERAL", "GEMEENTE UTRECHT",
                               "PASSPORT AUTHORITY", "BÜRGERAMT MITTE", "DEPARTMENT OF HOME AFFAIRS"]),
        "address": "%d %s, %s" % (r.randint(1, 240), r.choice(STREETS), r.choice(CITIES)),
        "height": r.randint(148, 201), "eyes": r.choice(["BROWN", "BLUE", "GREEN", "GREY", "HAZEL"]),
    }
    if fmt == "TD3":
        p["code"] = r.choices(["P<", "PD", "PO", "PS"], (90, 4, 4, 2))[0]
        if r.random() < 0.45:
            p["personal"] = "".join(r.choice(DIGITS) for _ in range(r.choice([9, 10, 11, 14])))
        elif r.random() < 0.15:
            p["personal"] = "".join(r.choice(LETTERS + DIGITS) for _ in range(r.randint(6, 12)))
    elif fmt == "TD2":
        p["code"] = r.choice(["I<", "ID", "IR", "AC", "I<"])
        if r.random() < 0.3:
            p["optional1"] = "".join(r.choice(DIGITS + LETTERS) for _ in range(r.randint(3, 7)))
    else:
        p["code"] = r.choice(["I<", "ID", "IR", "AC", "I<", "ID"])
        if r.random() < 0.35:
            p["optional1"] = "".join(r.choice(DIGITS) for _ in range(r.randint(6, 15)))
        if r.random() < 0.25:
            p["optional2"] = "".join(r.choice(DIGITS + LETTERS) for _ in range(r.randint(2, 11)))
    if len(p["issuer"]) == 1 and fmt != "TD3" and p["code"] == "I<" and r.random() < 0.5:
        p["code"] = "ID"
    return p


def parse_date(text, future):
    """A YYMMDD date as a date (None when not a date); the century from whether it is in the future."""
    try:
        yy, mm, dd = int(text[0:2]), int(text[2:4]), int(text[4:6])
        year = 2000 + yy if future or yy <= 25 else 1900 + yy
        return datetime.date(year, mm, dd)
    except ValueError:
        return None


def person_from_lines(r, fmt, lines):
    """The printed fields of a document whose MRZ is lines (for --document)."""
    if fmt == "TD1":
        code, issuer, number = lines[0][0:2], lines[0][2:5], lines[0][5:14]
        birth, sex, expiry, nationality = lines[1][0:6], lines[1][7], lines[1][8:14], lines[1][15:18]
        name = lines[2]
    else:
        code, issuer, name = lines[0][0:2], lines[0][2:5], lines[0][5:]
        line = lines[1]
        number, nationality, birth, sex, expiry = line[0:9], line[10:13], line[13:19], line[20], line[21:27]
    surname, _, given = name.partition("<<")
    person = random_person(r, fmt)
    expiry_date = parse_date(expiry, True)
    person.update({
        "code": code, "issuer": issuer.strip("<"), "nationality": nationality.strip("<"),
        "number": number.strip("<") or number, "sex": sex,
        "surname": surname.replace("<", " ").strip(), "given": given.replace("<", " ").strip(),
        "birth": parse_date(birth, False) or birth, "expiry": expiry_date or expiry,
    })
    if expiry_date:
        person["issued"] = add_years(expiry_date, -10) + datetime.timedelta(days=1)
    return person


# ---------------------------------------------------------------------------------------------
# Drawing helpers

_fonts = {}


def font(path, px):
    px = max(6, int(round(px)))
    key = (path, px)
    if key not in _fonts:
        _fonts[key] = ImageFont.truetype(path, px)
    return _fonts[key]


def smooth_noise(rng, w, h, cells_x, cells_y):
    """Low-frequency noise, about -1..1, as a float32 array of h x w."""
    small = rng.standard_normal((cells_y, cells_x)).astype(np.float32)
    return np.asarray(Image.fromarray(small, "F").resize((w, h), Image.BICUBIC))


def mix(c0, c1, t):
    return tuple(int(round(a + (b - a) * t)) for a, b in zip(c0, c1))


def jitter(r, color, amount):
    return tuple(max(0, min(255, c + r.randint(-amount, amount))) for c in color)


def format_date(d, style):
    if not isinstance(d, datetime.date):
        return str(d)
    months = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
    months_fr = ["JAN", "FÉV", "MARS", "AVR", "MAI", "JUIN", "JUIL", "AOÛT", "SEPT", "OCT", "NOV", "DÉC"]
    if style == 0:
        return "%02d %s/%s %d" % (d.day, months[d.month - 1], months_fr[d.month - 1], d.year)
    if style == 1:
        return "%02d.%02d.%d" % (d.day, d.month, d.year)
    if style == 2:
        return "%02d %s %d" % (d.day, months[d.month - 1], d.year)
    return "%d-%02d-%02d" % (d.year, d.month, d.day)


PARAGRAPHS = [
    "THE HOLDER OF THIS DOCUMENT IS REQUESTED TO KEEP IT IN A SAFE PLACE. ANY ALTERATION, DAMAGE OR "
    "LOSS MUST BE REPORTED WITHOUT DELAY TO THE ISSUING AUTHORITY OR THE NEAREST CONSULATE.",
    "This document remains the property of the issuing State and must be surrendered on request. "
    "It contains sensitive electronic components; do not bend, perforate or expose it to extreme "
    "temperatures or magnetic fields.",
    "THE SECRETARY OF STATE REQUESTS AND REQUIRES IN THE NAME OF THE SOVEREIGN ALL THOSE WHOM IT MAY "
    "CONCERN TO ALLOW THE BEARER TO PASS FREELY WITHOUT LET OR HINDRANCE AND TO AFFORD THE BEARER SUCH "
    "ASSISTANCE AND PROTECTION AS MAY BE NECESSARY.",
    "Le titulaire de ce document est prié de le conserver soigneusement. Toute modification non "
    "autorisée le rend invalide. En cas de perte ou de vol, la déclaration doit être faite auprès des "
    "autorités compétentes.",
    "Dieses Dokument ist Eigentum der ausstellenden Behörde. Änderungen oder Eintragungen durch "
    "Unbefugte sind unzulässig. Bei Verlust ist unverzüglich die zuständige Behörde zu benachrichtigen.",
    "REMARKS / OBSERVATIONS: VALID FOR ALL COUNTRIES. NO ENDORSEMENTS. HOLDER IS ENTITLED TO RESIDE "
    "AND WORK WITHOUT RESTRICTION. SEE PAGE 5 FOR FURTHER OBSERVATIONS BY THE ISSUING AUTHORITY.",
]


def wrap(text, fnt, width_px):
    words, lines, line = text.split(), [], ""
    for w in words:
        trial = (line + " " + w).strip()
        if fnt.getlength(trial) <= width_px or not line:
            line = trial
        else:
            lines.append(line)
            line = w
    if line:
        lines.append(line)
    return lines


# ---------------------------------------------------------------------------------------------
# Backgrounds (rendered at a third of the frame's size, then scaled up: the surface is a little
# farther from the camera than the document and a little out of focus)


def plane_coords(w, h, angle):
    """Coordinates of an h x w grid rotated by angle degrees: u along, v across (float32)."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    return x * c + y * s, -x * s + y * c


def table(rng, values, spread):
    """A lookup table of random values, indexed by an integer array shifted to start at 0."""
    lo = int(math.floor(float(values.min())))
    t = 1 + spread * rng.standard_normal(int(values.max()) - lo + 2).astype(np.float32)
    return t[(values - lo).astype(np.int64)]


def colorize(t, c0, c1):
    """A float array t in 0..1 as an RGB image between colours c0 and c1."""
    c0, c1 = np.array(c0, np.float32), np.array(c1, np.float32)
    rgb = c0 + (c1 - c0) * np.clip(t, 0, 1)[..., None]
    return Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8), "RGB")


def bg_wood(r, rng, w, h):
    u, v = plane_coords(w, h, r.uniform(-90, 90))
    plank = r.uniform(60, 175)
    plank_id = np.floor(v / plank)
    period = r.uniform(7, 27)
    # growth rings: thin dark latewood lines that meander gently along the grain
    warp = smooth_noise(rng, w, h, 3, 3) * r.uniform(3, 10) + 0.015 * u * r.choice([-1, 1])
    phase = (v + warp) / period + table(rng, plank_id, 3.0)
    frac = phase - np.floor(phase)
    lines = np.exp(-(((frac - 0.5) / r.uniform(0.06, 0.14)) ** 2))
    broad = smooth_noise(rng, w, h, 3, 8)
    streaks = (table(rng, np.floor(v * 1.5), 0.5) - 1) * (0.6 + 0.4 * smooth_noise(rng, w, h, 12, 3))
    t = 0.66 - 0.22 * lines + 0.08 * broad + 0.12 * streaks
    t = t * table(rng, plank_id, 0.08)
    t = np.where(np.mod(v, plank) < 1.2, t * 0.45, t)  # seams between planks
    palettes = [((150, 105, 62), (212, 168, 115)), ((62, 40, 26), (122, 84, 56)), ((190, 145, 95), (236, 204, 158)),
                ((110, 56, 36), (170, 102, 70)), ((128, 118, 108), (182, 172, 160)), ((96, 64, 40), (160, 118, 80))]
    c0, c1 = r.choice(palettes)
    return colorize(t, jitter(r, c0, 10), jitter(r, c1, 10))


def bg_fabric(r, rng, w, h):
    u, v = plane_coords(w, h, r.uniform(-30, 30))
    p = r.choice([1.5, 2.0, 2.5])
    iu, iv = np.floor(u / p), np.floor(v / p)
    twill = r.random() < 0.5
    over = (np.mod(iu + iv, 4) < 2) if twill else (np.mod(iu + iv, 2) < 1)
    fu, fv = u / p - iu, v / p - iv
    a = table(rng, iu, 0.22) * (0.65 + 0.35 * np.sin(np.pi * fu))
    b = table(rng, iv, 0.22) * (0.65 + 0.35 * np.sin(np.pi * fv))
    t = np.where(over, a, b) * 0.45 + 0.22 + 0.12 * smooth_noise(rng, w, h, 7, 5)
    base = r.choice([(52, 70, 110), (95, 95, 100), (85, 95, 60), (110, 45, 50), (140, 120, 95), (40, 40, 48),
                     (70, 110, 120), (150, 150, 150)])
    base = jitter(r, base, 15)
    return colorize(t, mix(base, (0, 0, 0), 0.6), mix(base, (255, 255, 255), 0.35))


def bg_tablecloth(r, rng, w, h):
    u, v = plane_coords(w, h, r.uniform(-45, 45))
    period = r.uniform(12, 40)
    bx = np.mod(np.floor(u / (period / 2)), 2)
    by = np.mod(np.floor(v / (period / 2)), 2)
    colours = [(190, 40, 45), (40, 80, 160), (40, 120, 70), (200, 150, 40), (30, 30, 30)]
    colour = np.array(jitter(r, r.choice(colours), 20), np.float32)
    white = np.array(jitter(r, (238, 236, 228), 10), np.float32)
    weight = 0.5 * bx + 0.5 * by
    if r.random() < 0.5:  # a thin dark stripe in each band (tartan-like)
        thin = np.maximum(np.mod(u, period) < period * 0.08, np.mod(v, period) < period * 0.08)
        weight = np.maximum(weight, thin * 0.8)
    shade = (1 + 0.06 * rng.standard_normal((h, w)).astype(np.float32)) * (1 + 0.12 * smooth_noise(rng, w, h, 9, 7))
    rgb = (white + (colour - white) * weight[..., None]) * shade[..., None]
    return Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8), "RGB")


def bg_dark(r, rng, w, h):
    colours = [(22, 22, 26), (35, 30, 28), (18, 24, 40), (40, 42, 45), (12, 12, 12)]
    base = np.array(jitter(r, r.choice(colours), 8), np.float32)
    t = 1 + 0.25 * smooth_noise(rng, w, h, 6, 4) + 0.05 * rng.standard_normal((h, w)).astype(np.float32)
    rgb = base * t[..., None]
    return Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8), "RGB")


def bg_light_desk(r, rng, w, h):
    colours = [(200, 200, 195), (225, 222, 215), (180, 185, 190), (210, 200, 180)]
    base = np.array(jitter(r, r.choice(colours), 10), np.float32)
    t = 1 + 0.06 * smooth_noise(rng, w, h, 5, 3) + 0.03 * rng.standard_normal((h, w)).astype(np.float32)
    return Image.fromarray(np.clip(base * t[..., None], 0, 255).astype(np.uint8), "RGB")


def bg_clutter(r, rng, w, h):
    img = r.choice([bg_wood, bg_dark, bg_light_desk, bg_fabric])(r, rng, w, h)
    for _ in range(r.randint(3, 7)):
        sw, sh = r.randint(110, 280), r.randint(110, 280)
        papers = [(245, 245, 240), (250, 246, 230), (240, 238, 200), (252, 230, 120), (235, 240, 245)]
        paper = jitter(r, r.choice(papers), 6)
        sheet = Image.new("RGBA", (sw, sh), paper + (255,))
        d = ImageDraw.Draw(sheet)
        size = r.randint(6, 9)
        f = font(SANS[r.choice(["regular", "condensed", "bold"])], size)
        y = r.randint(6, 14)
        text = " ".join(r.sample(PARAGRAPHS, 3))
        ink = jitter(r, r.choice([(50, 50, 55), (40, 50, 90), (70, 60, 60)]), 8)
        for line in wrap(text, f, sw - 16):
            if y > sh - size - 4:
                break
            d.text((8, y), line, font=f, fill=ink)
            y += int(size * 1.5)
        if r.random() < 0.3:
            d.rectangle((7, sh - 27, sw - 7, sh - 21), fill=(200, 60, 60))
        sheet = sheet.rotate(r.uniform(-40, 40), Image.BICUBIC, expand=True)
        img.paste(sheet, (r.randint(-sw // 2, w - sw // 2), r.randint(-sh // 2, h - sh // 2)), sheet)
    if r.random() < 0.6:  # a pen
        d = ImageDraw.Draw(img)
        x0, y0 = r.randint(0, w), r.randint(0, h)
        a = r.uniform(0, math.pi)
        ln = r.randint(80, 120)
        end = (x0 + ln * math.cos(a), y0 + ln * math.sin(a))
        d.line([(x0, y0), end], fill=jitter(r, (20, 30, 90), 20), width=r.randint(3, 5))
    return img


BACKGROUNDS = {"wood": bg_wood, "fabric": bg_fabric, "tablecloth": bg_tablecloth, "dark": bg_dark,
               "light-desk": bg_light_desk, "paper-clutter": bg_clutter}


def background(r, rng, kind, blur):
    """The surface under the document, seen through a lens with Gaussian blur (frame pixels)."""
    small = BACKGROUNDS[kind](r, rng, FRAME_W // 3, FRAME_H // 3)
    if blur > 0.3:
        small = small.filter(ImageFilter.GaussianBlur(blur / 3))
    return small.resize((FRAME_W, FRAME_H), Image.BILINEAR)


# ---------------------------------------------------------------------------------------------
# The document


class Page:
    """A document drawn in millimetres at s pixels per millimetre."""

    def __init__(self, width_mm, height_mm, s, paper):
        self.s = s
        self.w, self.h = int(round(width_mm * s)), int(round(height_mm * s))
        self.img = Image.new("RGB", (self.w, self.h), paper)
        self.draw = ImageDraw.Draw(self.img)

    def text(self, x, y, text, cap_mm, path, fill, anchor="ls"):
        """text with its baseline at y (mm) and its capitals cap_mm high."""
        f = font(path, cap_mm * self.s / SANS_CAP)
        self.draw.text((x * self.s, y * self.s), text, font=f, fill=fill, anchor=anchor)
        return f.getlength(text) / self.s

    def fitted_text(self, x, y, text, cap_mm, path, fill, max_mm):
        f = font(path, cap_mm * self.s / SANS_CAP)
        length = f.getlength(text) / self.s
        if length > max_mm:
            cap_mm *= max_mm / length
        return self.text(x, y, text, cap_mm, path, fill)


def draw_guilloche(r, page, tint, width_mm, height_mm):
    d, s = page.draw, page.s
    line_w = max(1, int(round(0.07 * s)))
    # families of interlaced waves across the page
    for _ in range(r.randint(2, 3)):
        colour = mix(tint, jitter(r, (120, 120, 140), 40), r.uniform(0.15, 0.35))
        spacing = r.uniform(0.9, 2.0)
        amp, wavelength, drift = r.uniform(1.0, 4.0), r.uniform(8, 30), r.uniform(0.1, 0.6)
        slope = r.uniform(-0.15, 0.15)
        xs = np.linspace(-2, width_mm + 2, max(60, int(width_mm * s / 6)))
        for k in range(int((height_mm + 20) / spacing)):
            y0 = -10 + k * spacing
            ys = y0 + slope * xs + amp * np.sin(2 * np.pi * xs / wavelength + k * drift)
            d.line(np.column_stack([xs * s, ys * s]).ravel().tolist(), fill=colour, width=line_w)
    # rosettes (hypotrochoids)
    for _ in range(r.randint(1, 3)):
        colour = mix(tint, jitter(r, (150, 100, 140), 50), r.uniform(0.2, 0.4))
        cx, cy = r.uniform(0.2, 0.9) * width_mm, r.uniform(0.15, 0.7) * height_mm
        big, small = r.uniform(8, 22), r.uniform(1.5, 6)
        offset = r.uniform(2, 10)
        turns = r.randint(15, 40)
        t = np.linspace(0, 2 * np.pi * turns, 3000)
        x = (big - small) * np.cos(t) + offset * np.cos((big - small) / small * t)
        y = (big - small) * np.sin(t) - offset * np.sin((big - small) / small * t)
        d.line(np.column_stack([(cx + x) * s, (cy + y) * s]).ravel().tolist(), fill=colour, width=line_w)


def draw_photo(r, page, x, y, w, h, ghost=False):
    s = page.s
    pw, ph = max(4, int(w * s)), max(4, int(h * s))
    back = r.randint(150, 215)
    ramp = np.linspace(0, 1, ph, dtype=np.float32)[:, None] * r.uniform(-25, 25)
    arr = np.full((ph, pw), back, np.float32) + ramp
    photo = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "L")
    d = ImageDraw.Draw(photo)
    tone = r.randint(70, 140)
    hx, hy, hr = pw * r.uniform(0.45, 0.55), ph * r.uniform(0.38, 0.45), pw * r.uniform(0.2, 0.26)
    hair = max(0, tone - r.randint(20, 70))
    d.ellipse((hx - hr * 1.18, hy - hr * 1.45, hx + hr * 1.18, hy + hr * r.uniform(0.2, 1.1)), fill=hair)
    d.ellipse((pw * 0.08, ph * 0.72, pw * 0.92, ph * 1.35), fill=max(0, tone - r.randint(-30, 40)))
    d.rectangle((hx - hr * 0.42, hy + hr * 0.8, hx + hr * 0.42, ph * 0.8), fill=tone)
    d.ellipse((hx - hr, hy - hr * 1.2, hx + hr, hy + hr * 1.25), fill=tone + 15)
    d.chord((hx - hr * 1.02, hy - hr * 1.32, hx + hr * 1.02, hy - hr * 0.1), 180, 360, fill=hair)
    photo = photo.filter(ImageFilter.GaussianBlur(max(0.5, 0.15 * s)))
    gains = (1.0, r.uniform(0.96, 1.0), r.uniform(0.92, 1.0))
    rgb = Image.merge("RGB", [photo.point(lambda v, k=k: int(v * k)) for k in gains])
    if ghost:
        mask = Image.new("L", rgb.size, r.randint(60, 110))
        page.img.paste(rgb, (int(x * s), int(y * s)), mask)
    else:
        page.img.paste(rgb, (int(x * s), int(y * s)))
        page.draw.rectangle((int(x * s), int(y * s), int(x * s) + pw - 1, int(y * s) + ph - 1),
                            outline=(110, 110, 110), width=max(1, int(0.1 * s)))


def draw_signature(r, page, x, y, w, h, colour):
    t = np.linspace(0, 1, 300)
    loops = r.uniform(3, 8)
    xs = x + w * t + w * 0.05 * np.sin(2 * np.pi * loops * t + r.uniform(0, 6))
    ys = y + h * 0.5 + h * 0.35 * np.sin(2 * np.pi * loops * t * r.uniform(0.9, 1.3)) * np.sin(np.pi * t)
    page.draw.line([(float(a * page.s), float(b * page.s)) for a, b in zip(xs, ys)], fill=colour,
                   width=max(1, int(0.25 * page.s)))


def draw_fields(r, page, x0, y0, x1, rows, style):
    """Rows of (label, value) columns from (x0, y0) mm; returns the y below them."""
    y = y0
    label_cap, value_cap = style["label_cap"], style["value_cap"]
    for row in rows:
        col_w = (x1 - x0) / len(row)
        for k, (label, value) in enumerate(row):
            x = x0 + k * col_w
            page.fitted_text(x, y + label_cap, label, label_cap, style["label_font"], style["label_colour"], col_w - 1)
            page.fitted_text(x, y + label_cap + 0.9 + value_cap, value, value_cap, style["value_font"],
                             style["value_colour"], col_w - 1)
        y += label_cap + value_cap + style["row_gap"] + 0.9
    return y


def render_document(r, fmt, p, lines, s, text_heavy, mrz_print=None):
    """The document as an RGBA image at s px/mm, and its MRZ's character centres and cap height (px).
    mrz_print (the real-looking split) chooses how the zone was printed: see print_style()."""
    spec = FORMATS[fmt]
    W, H = spec["size"]
    tint0 = jitter(r, r.choice([(238, 226, 232), (226, 238, 228), (224, 232, 244), (244, 238, 220), (234, 228, 244),
                                (240, 240, 236), (230, 240, 240)]), 8)
    second = r.choice([(250, 220, 200), (200, 230, 250), (230, 250, 210), (250, 240, 250)])
    tint1 = mix(tint0, jitter(r, second, 10), 0.6)
    page = Page(W, H, s, tint0)
    # rainbow printing: a horizontal blend between two tints
    ramp = np.linspace(0, 1, page.w, dtype=np.float32)[None, :, None] * np.ones((page.h, 1, 1), np.float32)
    arr = np.array(tint0, np.float32) + (np.array(tint1, np.float32) - np.array(tint0, np.float32)) * ramp
    page.img = Image.fromarray(arr.astype(np.uint8), "RGB")
    page.draw = ImageDraw.Draw(page.img)
    draw_guilloche(r, page, tint0, W, H)

    mrz_lines = spec["lines"]
    spacing = spec["spacing"] * r.uniform(0.95, 1.06)
    bottom = spec["bottom"] * r.uniform(0.92, 1.08)
    mrz_top = H - bottom - spacing * (mrz_lines - 1) - 3.2
    if r.random() < 0.6:  # clear zone behind the MRZ
        band = Image.new("RGB", (page.w, page.h - int(mrz_top * s)), mix(tint0, (255, 255, 255), 0.3))
        page.img.paste(band, (0, int(mrz_top * s)), Image.new("L", band.size, r.randint(140, 255)))

    dark = jitter(r, r.choice([(30, 40, 90), (90, 30, 40), (30, 70, 50), (40, 40, 40), (70, 40, 90)]), 15)
    style = {
        "label_cap": r.uniform(1.1, 1.4) * (0.85 if fmt == "TD1" else 1.0),
        "value_cap": r.uniform(1.9, 2.5) * (0.8 if fmt == "TD1" else 1.0),
        "label_font": SANS[r.choice(["regular", "oblique", "condensed"])],
        "value_font": SANS[r.choice(["bold", "regular", "condensed-bold"])],
        "label_colour": mix(dark, tint0, 0.2),
        "value_colour": jitter(r, (20, 20, 25), 10),
        "row_gap": r.uniform(1.0, 1.8) * (0.6 if fmt == "TD1" else 1.0),
    }
    country, country2 = COUNTRY_NAMES.get(p["issuer"], ("UTOPIA", ""))
    kind = {"TD3": "PASSPORT / PASSEPORT / PASAPORTE", "TD2": "IDENTITY CARD / CARTE D'IDENTITÉ",
            "TD1": "IDENTITY CARD / CARTE D'IDENTITÉ"}[fmt]
    if p["code"].startswith("A") or p["code"].startswith("C"):
        kind = "CREW MEMBER CERTIFICATE / CERTIFICAT DE MEMBRE D'ÉQUIPAGE"
    elif p["code"] == "IR":
        kind = "RESIDENCE PERMIT / TITRE DE SÉJOUR"
    date_style = r.randint(0, 3)

    # header
    header_h = {"TD3": 10.0, "TD2": 8.5, "TD1": 7.0}[fmt]
    if r.random() < 0.4:
        page.draw.rectangle((0, 0, page.w, int(header_h * s)), fill=mix(dark, tint0, 0.25))
        title_colour = (245, 245, 240)
    else:
        title_colour = dark
    title_cap = {"TD3": 2.6, "TD2": 2.2, "TD1": 1.9}[fmt] * r.uniform(0.9, 1.1)
    page.fitted_text(3.5, 1.2 + title_cap, country, title_cap, SANS["bold"], title_colour, W - 7)
    sub = kind if not country2 else country2 + "  ·  " + kind
    page.fitted_text(3.5, header_h - 1.2, sub, title_cap * 0.6, SANS["regular"], title_colour, W - 7)

    number_text = p["number"]
    nat_word = NATIONALITY_WORDS.get(p["nationality"], p["nationality"])
    sex_text = {"M": "M", "F": "F", "<": "X"}.get(p["sex"], p["sex"])
    if fmt == "TD1" and r.random() < 0.55:
        # the back of an ID card: address, authority, a ghost image
        y = draw_fields(r, page, 3.5, header_h + 1.0, W - 24, [
            [("Address / Adresse", p["address"])],
            [("Height / Taille", "%d cm" % p["height"]), ("Eyes / Yeux", p["eyes"])],
            [("Authority / Autorité", p["authority"])],
            [("Date of issue / Date de délivrance", format_date(p["issued"], date_style))],
        ], style)
        draw_photo(r, page, W - 20, header_h + 1.5, 15, 19, ghost=True)
        text_top, text_left, text_right = y, 3.5, W - 24
    else:
        ph_w, ph_h = {"TD3": (32, 41), "TD2": (25, 32), "TD1": (21, 27)}[fmt]
        draw_photo(r, page, 4.0, header_h + 2.0, ph_w, ph_h)
        x0 = 4.0 + ph_w + 4.0
        rows = [
            [("Type", p["code"].replace("<", "")), ("Code", p["issuer"]), ("Document No.", number_text)],
            [("Surname / Nom", p["surname"])],
            [("Given names / Prénoms", p["given"] or "—")],
            [("Nationality / Nationalité", nat_word), ("Sex / Sexe", sex_text)],
            [("Date of birth / Date de naissance", format_date(p["birth"], date_style)),
             ("Place of birth", p["place"])],
        ]
        if fmt == "TD3":
            rows += [
                [("Date of issue / Date de délivrance", format_date(p["issued"], date_style)),
                 ("Authority / Autorité", p["authority"])],
                [("Date of expiry / Date d'expiration", format_date(p["expiry"], date_style))],
            ]
        else:
            rows[-1] = rows[-1][:1] + [("Date of expiry", format_date(p["expiry"], date_style))]
        y = draw_fields(r, page, x0, header_h + 1.5, W - 3, rows, style)
        sig_y = header_h + 2.5 + ph_h
        if sig_y + 5 < mrz_top:
            page.text(4.0, sig_y + 1.6, "Signature", 1.0, SANS["oblique"], style["label_colour"])
            sig_h = min(5.0, mrz_top - sig_y - 2.5)
            draw_signature(r, page, 4.5, sig_y + 1.8, ph_w * 0.9, sig_h, jitter(r, (20, 30, 80), 20))
        text_top, text_left, text_right = y, x0, W - 3.5
    if text_heavy:
        # dense printed text above the MRZ (remarks, notices): text that is not the MRZ
        cap = r.uniform(0.9, 1.25)
        f = font(SANS[r.choice(["regular", "condensed"])], cap * s / SANS_CAP)
        text = " ".join(r.sample(PARAGRAPHS, 3))
        yy = text_top + 0.5
        x0 = text_left
        for line in wrap(text, f, (text_right - text_left) * s):
            if yy + cap > mrz_top - 0.8:
                break
            page.draw.text((x0 * s, (yy + cap) * s), line, font=f, fill=style["label_colour"], anchor="ls")
            yy += cap * 1.55
    if r.random() < 0.5:  # the document number again, vertically along the right edge
        f = font(SANS["bold"], 1.8 * s / SANS_CAP)
        strip = Image.new("L", (int(f.getlength(number_text)) + 4, int(2.6 * s)), 0)
        ImageDraw.Draw(strip).text((2, int(2.3 * s)), number_text, font=f, fill=255, anchor="ls")
        strip = strip.rotate(90, expand=True)
        if strip.height < mrz_top * s - header_h * s:
            page.img.paste(Image.new("RGB", strip.size, dark), (int((W - 3.2) * s), int((header_h + 2) * s)), strip)

    # the MRZ: OCR-B, each character centred in its 2.54 mm cell
    cap_mm = r.uniform(2.2, 2.5)
    pitch = PITCH_MM * r.uniform(0.985, 1.015)
    left = spec["left"] + r.uniform(-0.7, 0.7)
    f = font(OCRB, cap_mm * s / OCRB_CAP)
    ink = jitter(r, (28, 28, 34), 14)
    centres = []
    if mrz_print is not None:
        centres = draw_printed_mrz(r, page, lines, mrz_print, cap_mm, pitch, left, H - bottom, spacing, tint0)
    for row, line in enumerate(lines if mrz_print is None else []):
        centre_y = H - bottom - spacing * (mrz_lines - 1 - row)
        base_y = centre_y + cap_mm / 2
        row_centres = []
        for i, c in enumerate(line):
            cx = left + (i + 0.5) * pitch + r.uniform(-0.04, 0.04)
            shade = r.randint(-10, 10)
            fill = tuple(max(0, min(255, v + shade)) for v in ink)
            page.draw.text((cx * s, (base_y + r.uniform(-0.04, 0.04)) * s), c, font=f, fill=fill, anchor="ms")
            row_centres.append((cx * s, centre_y * s))
        centres.append(row_centres)

    # rounded corners
    mask = Image.new("L", (page.w, page.h), 0)
    radius = {"TD3": r.uniform(2.0, 3.5), "TD2": 3.18, "TD1": 3.18}[fmt]
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, page.w - 1, page.h - 1), radius=int(radius * s), fill=255)
    rgba = page.img.convert("RGBA")
    rgba.putalpha(mask)
    return rgba, centres, cap_mm * s


# ---------------------------------------------------------------------------------------------
# The real-looking split: how the zone was printed, and how it was captured

OCRB_SHARP = "/usr/share/fonts/opentype/ocr-b/OCRBS.otf"
# Codes that issued documents print although ISO 3166 has no such code (or no longer has it):
# Germany's D (padded D<<), old and national codes, test and specimen codes.
IRREGULAR_CODES = ["D", "BDR", "SI", "UTO", "XOM", "YUG", "CSK", "SUN", "DDR", "ZZZ", "RKS", "XKX"]


def print_style(r):
    """How one document's zone was printed: the OCR-B cut, ink spread (negative: thin strokes),
    glyph width, the printer (ink or toner, dot matrix, laser engraving) and a hologram over it."""
    return {
        "font": r.choice([OCRB, OCRB, OCRB_SHARP]),
        "spread": round(r.uniform(-1.0, 1.0), 3),
        "width": round(r.uniform(0.86, 1.08), 3),
        "printer": r.choices(["ink", "dot-matrix", "laser-engraved"], (60, 20, 20))[0],
        "hologram": round(r.uniform(0.08, 0.28), 3) if r.random() < 0.3 else None,
    }


def draw_printed_mrz(r, page, lines, style, cap_mm, pitch, left, last_centre_mm, spacing, tint):
    """Draws the zone the way style says (see print_style); returns the character centres (px)."""
    s = page.s
    count = len(lines)
    f = font(style["font"], cap_mm * s / OCRB_CAP)
    cell_w, cell_h = int(pitch * s * 2) + 4, int(cap_mm * s * 2) + 4
    top_mm = last_centre_mm - spacing * (count - 1) - cap_mm
    band = (0, max(0, int(top_mm * s)), page.w, min(page.h, int((last_centre_mm + cap_mm) * s) + 1))
    mask = Image.new("L", (band[2] - band[0], band[3] - band[1]), 0)
    centres = []
    for row, line in enumerate(lines):
        centre_y = last_centre_mm - spacing * (count - 1 - row)
        row_centres = []
        for i, c in enumerate(line):
            cx = left + (i + 0.5) * pitch + r.uniform(-0.05, 0.05)
            cy = centre_y + r.uniform(-0.05, 0.05)
            glyph = Image.new("L", (cell_w, cell_h), 0)
            ImageDraw.Draw(glyph).text((cell_w / 2, cell_h / 2 + cap_mm * s / 2), c, font=f, fill=255, anchor="ms")
            if style["width"] != 1.0:
                glyph = glyph.resize((max(1, int(cell_w * style["width"])), cell_h), Image.BILINEAR)
            mask.paste(255, (int(cx * s - glyph.width / 2), int(cy * s - cell_h / 2) - band[1]), glyph)
            row_centres.append((cx * s, centre_y * s))
        centres.append(row_centres)
    # ink spread: blur, then a soft threshold below (thicker) or above (thinner) the middle
    sigma = max(0.6, 0.05 * s)
    threshold = 128 - 70 * style["spread"]
    mask = mask.filter(ImageFilter.GaussianBlur(sigma)).point(
        lambda v: int(max(0, min(255, (v - threshold) * 3 + 128))))
    arr = np.asarray(mask, np.float32) / 255.0
    if style["printer"] == "dot-matrix":
        period = max(2.0, 0.3 * s)
        ys, xs = np.mgrid[0:arr.shape[0], 0:arr.shape[1]].astype(np.float32)
        dx, dy = (xs % period) - period / 2, (ys % period) - period / 2
        dots = np.clip(1.6 - np.sqrt(dx * dx + dy * dy) / (0.42 * period) * 1.6, 0, 1)
        arr = arr * dots
        arr = np.asarray(Image.fromarray((arr * 255).astype(np.uint8), "L").filter(
            ImageFilter.GaussianBlur(max(0.5, 0.03 * s))), np.float32) / 255.0 * 1.3
    region = np.asarray(page.img.crop(band), np.float32)
    if style["printer"] == "laser-engraved":
        ink = np.array(jitter(r, (70, 66, 62), 20), np.float32)
        rim = np.roll(arr, (1, 1), axis=(0, 1)) * 0.35
        region = region + (255 - region) * np.clip(rim - arr, 0, 1)[..., None]
    else:
        ink = np.array(jitter(r, (28, 28, 34), 14), np.float32)
    arr = np.clip(arr, 0, 1)[..., None]
    region = region * (1 - arr) + ink * arr
    if style["hologram"]:
        ys, xs = np.mgrid[0:region.shape[0], 0:region.shape[1]].astype(np.float32)
        angle, period = r.uniform(0, math.pi), r.uniform(3, 9) * s
        phase = (xs * math.cos(angle) + ys * math.sin(angle)) / period * 2 * math.pi
        rainbow = 0.5 + 0.5 * np.stack([np.sin(phase), np.sin(phase + 2.1), np.sin(phase + 4.2)], axis=-1)
        x0 = r.uniform(0, 0.7) * region.shape[1]
        extent = np.clip(1 - np.abs(xs - x0 - 0.15 * region.shape[1]) / (0.2 * region.shape[1]), 0, 1)
        alpha = style["hologram"] * extent[..., None]
        region = region * (1 - alpha) + 255 * rainbow * alpha
    page.img.paste(Image.fromarray(np.clip(region, 0, 255).astype(np.uint8), "RGB"), band[:2])
    return centres


def draw_params_real(r, fmt):
    """The capture of a real-looking frame: a phone photo (70 %) or a flatbed scan; how the zone
    was printed; the capital height in pixels (12 to 32); a turn of the whole picture."""
    d = {"capture": r.choices(["phone", "scan"], (70, 30))[0]}
    phone = d["capture"] == "phone"
    d["rotation_deg"] = round(r.uniform(-10, 10) if phone else r.uniform(-3, 3), 2)
    tilt = r.uniform(0, 30) if phone else 0.0
    direction = r.uniform(0, 2 * math.pi)
    d["tilt_x_deg"], d["tilt_y_deg"] = round(tilt * math.sin(direction), 2), round(tilt * math.cos(direction), 2)
    d["blur_sigma_px"] = round(r.uniform(0.2, 1.6) if phone else r.uniform(0.3, 0.9), 2)
    d["noise_read_sigma"] = round(r.uniform(0.005, 0.03) if phone else r.uniform(0.003, 0.012), 4)
    d["noise_shot"] = round(r.uniform(0.0002, 0.005) if phone else r.uniform(0.00005, 0.0005), 5)
    d["vignette"] = round(r.uniform(0.0, 0.35), 3) if phone else 0.0
    d["light_gradient"] = round(r.uniform(0.0, 0.35) if phone else r.uniform(0.0, 0.05), 3)
    d["light_gradient_angle_deg"] = round(r.uniform(0, 360), 1)
    d["colour_cast_rgb"] = [round(r.uniform(0.94, 1.12), 3), 1.0, round(r.uniform(0.78, 1.06), 3)] if phone \
        else [1.0, 1.0, 1.0]
    d["low_light"] = None
    if phone and r.random() < 0.25:
        d["low_light"] = {"gamma": round(r.uniform(1.1, 1.6), 3), "gain": round(r.uniform(0.45, 0.7), 3),
                          "black_level": round(r.uniform(0.02, 0.06), 3)}
    d["shadow"] = None
    if phone and r.random() < 0.15:
        d["shadow"] = {"depth": round(r.uniform(0.2, 0.4), 3), "angle_deg": round(r.uniform(0, 360), 1),
                       "offset": round(r.uniform(-0.3, 0.3), 3), "softness_px": round(r.uniform(40, 160), 1)}
    d["glare"] = {"strength": round(r.uniform(0.5, 1.2), 3)} if phone and r.random() < 0.4 else None
    d["sharpen"] = {"radius": round(r.uniform(1.0, 2.5), 2), "percent": r.randint(40, 120)} \
        if r.random() < 0.45 else None
    d["mrz_print"] = print_style(r)
    d["target_cap_px"] = round(r.uniform(12, 32), 1)
    d["turn_deg"] = r.choices([0, 90, 180, 270], (80, 6, 8, 6))[0]
    return d


def booklet(r, page_img, s, text_heavy):
    """A passport data page inside its open booklet: the cover around it, the facing page above."""
    margin = r.uniform(2.0, 3.5) * s
    gap = r.uniform(1.0, 3.0) * s
    pw, ph = page_img.size
    cw, ch = int(pw + 2 * margin), int(2 * ph + 2 * margin + gap)
    cover = jitter(r, r.choice([(110, 20, 35), (20, 35, 80), (25, 60, 40), (25, 25, 25), (80, 25, 40)]), 12)
    canvas = Image.new("RGBA", (cw, ch), cover + (0,))
    d = ImageDraw.Draw(canvas)
    d.rounded_rectangle((0, 0, cw - 1, ch - 1), radius=int(4 * s), fill=cover + (255,))
    facing = Image.new("RGBA", (pw, ph), jitter(r, (236, 232, 222), 8) + (255,))
    fd = ImageDraw.Draw(facing)
    for k in range(0, ph, max(2, int(1.6 * s))):  # a faint line pattern on the facing page
        fd.line([(0, k), (pw, k + int(r.uniform(-2, 2) * s))], fill=jitter(r, (220, 214, 205), 6))
    if text_heavy or r.random() < 0.5:
        f = font(SANS[r.choice(["regular", "oblique"])], r.uniform(1.4, 1.9) * s / SANS_CAP)
        y = int(ph * 0.25)
        for line in wrap(" ".join(r.sample(PARAGRAPHS, 2)), f, pw - 16 * s):
            if y > ph - 10 * s:
                break
            fd.text((8 * s, y), line, font=f, fill=(70, 60, 60), anchor="ls")
            y += int(f.size * 1.5)
    fmask = Image.new("L", (pw, ph), 0)
    ImageDraw.Draw(fmask).rounded_rectangle((0, 0, pw - 1, ph - 1), radius=int(2 * s), fill=255)
    canvas.paste(facing, (int(margin), int(margin)), fmask)
    top = int(margin + ph + gap)
    hinge = [(margin, top - gap / 2), (cw - margin, top - gap / 2)]
    d.line(hinge, fill=mix(cover, (0, 0, 0), 0.5), width=max(1, int(gap / 2)))
    canvas.paste(page_img, (int(margin), top), page_img)
    return canvas, (int(margin), top)


# ---------------------------------------------------------------------------------------------
# Geometry


def homography(src, dst):
    """The 3 x 3 matrix that maps the four points src onto dst."""
    a, b = [], []
    for (x, y), (u, v) in zip(src, dst):
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        b.append(u)
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        b.append(v)
    h = np.linalg.solve(np.array(a, np.float64), np.array(b, np.float64))
    return np.append(h, 1.0).reshape(3, 3)


def apply_h(h, pts):
    pts = np.asarray(pts, np.float64)
    q = np.c_[pts, np.ones(len(pts))] @ h.T
    return q[:, :2] / q[:, 2:3]


def camera_quad(w, h, rotation, tilt_x, tilt_y, focal):
    """Corners of a w x h rectangle rotated in its plane, tilted, and projected (pinhole, focal px)."""
    corners = np.array([[-w / 2, -h / 2, 0], [w / 2, -h / 2, 0], [w / 2, h / 2, 0], [-w / 2, h / 2, 0]])
    c, s = math.cos(math.radians(rotation)), math.sin(math.radians(rotation))
    rz = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    c, s = math.cos(math.radians(tilt_x)), math.sin(math.radians(tilt_x))
    rx = np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    c, s = math.cos(math.radians(tilt_y)), math.sin(math.radians(tilt_y))
    ry = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    p = corners @ rz.T @ rx.T @ ry.T + np.array([0, 0, focal])
    return p[:, :2] * focal / p[:, 2:3]


# ---------------------------------------------------------------------------------------------
# One frame


def draw_params(r, split, fmt):
    """The scene and camera numbers of one frame (all recorded in the manifest)."""
    hard = split == "hard"
    d = {}
    d["rotation_deg"] = round(r.uniform(-15, 15) if hard else r.uniform(-4, 4), 2)
    tilt = r.uniform(8, 30) if hard else r.uniform(0, 8)
    direction = r.uniform(0, 2 * math.pi)
    d["tilt_x_deg"], d["tilt_y_deg"] = round(tilt * math.sin(direction), 2), round(tilt * math.cos(direction), 2)
    blur = r.uniform(1.0, 2.2) if hard else r.uniform(0.0, 0.8)
    d["blur_sigma_px"] = round(blur, 2) if blur >= 0.25 else 0.0  # less does not show
    d["noise_read_sigma"] = round(r.uniform(0.02, 0.045) if hard else r.uniform(0.003, 0.01), 4)
    d["noise_shot"] = round(r.uniform(0.002, 0.008) if hard else r.uniform(0.00005, 0.0004), 5)
    d["vignette"] = round(r.uniform(0.15, 0.5) if hard else r.uniform(0.0, 0.25), 3)
    d["light_gradient"] = round(r.uniform(0.15, 0.45) if hard else r.uniform(0.0, 0.2), 3)
    d["light_gradient_angle_deg"] = round(r.uniform(0, 360), 1)
    cast = (r.uniform(0.95, 1.15), 1.0, r.uniform(0.72, 0.95)) if hard and r.random() < 0.6 else \
        (r.uniform(0.94, 1.06), 1.0, r.uniform(0.92, 1.08))
    d["colour_cast_rgb"] = [round(v, 3) for v in cast]
    d["low_light"] = None
    if hard and r.random() < 0.6:
        d["low_light"] = {"gamma": round(r.uniform(1.2, 1.8), 3), "gain": round(r.uniform(0.38, 0.65), 3),
                          "black_level": round(r.uniform(0.02, 0.08), 3)}
    d["shadow"] = None
    if hard and r.random() < 0.3:
        d["shadow"] = {"depth": round(r.uniform(0.25, 0.45), 3), "angle_deg": round(r.uniform(0, 360), 1),
                       "offset": round(r.uniform(-0.3, 0.3), 3), "softness_px": round(r.uniform(40, 160), 1)}
    d["glare"] = None
    if hard and r.random() < 0.55:
        d["glare"] = {"strength": round(r.uniform(0.7, 1.3), 3)}
    elif not hard and r.random() < 0.2:
        d["glare"] = {"strength": round(r.uniform(0.15, 0.35), 3)}
    d["sharpen"] = None
    if r.random() < 0.35:
        d["sharpen"] = {"radius": round(r.uniform(1.0, 2.5), 2), "percent": r.randint(40, 120)}
    return d


def place(r, fmt, split, d, blur_px, cap_mm_guess):
    """Chooses the page's scale and place in the frame: its four corners in frame pixels."""
    W, H = FORMATS[fmt]["size"]
    focal = 1400.0
    quad0 = camera_quad(W, H, d["rotation_deg"], d["tilt_x_deg"], d["tilt_y_deg"], focal / 10.0)
    # quad0 is in units of "mm at the nominal scale"; find the largest scale that fits the frame
    span_x = quad0[:, 0].max() - quad0[:, 0].min()
    span_y = quad0[:, 1].max() - quad0[:, 1].min()
    margin = 12
    max_scale = min((FRAME_W - 2 * margin) / span_x, (FRAME_H - 2 * margin) / span_y)  # px per mm
    lo, hi = (0.35, 0.9) if split == "hard" else (0.5, 0.9)
    scale_hi = min(hi * FRAME_W / W, max_scale)
    if split == "hard":
        # keep the MRZ legible: characters at least 12.5 pixels high (14.5 in low light) and at
        # least ten times the blur; a blur too strong for the largest fitting size is lessened
        low_light = 2.0 if d["low_light"] else 0.0
        cap_px = max(12.5 + low_light, blur_px / 0.1)
        if cap_px > scale_hi * cap_mm_guess:
            d["blur_sigma_px"] = round(max(1.0, 0.1 * scale_hi * cap_mm_guess), 2)
        lo = max(lo, min(cap_px, scale_hi * cap_mm_guess) / cap_mm_guess * W / FRAME_W)
    scale_lo = min(lo * FRAME_W / W, scale_hi)
    scale = r.uniform(scale_lo, scale_hi)
    if split == "real":
        # the capital height asked for (down to 12 px); a blur of more than a tenth of it is lessened
        scale = min(d["target_cap_px"] / cap_mm_guess, scale_hi)
        d["blur_sigma_px"] = round(min(d["blur_sigma_px"], max(0.2, 0.1 * scale * cap_mm_guess)), 2)
    q = quad0 * scale
    q -= q.min(axis=0)
    ox = r.uniform(margin, FRAME_W - margin - q[:, 0].max())
    oy = r.uniform(margin, FRAME_H - margin - q[:, 1].max())
    return q + np.array([ox, oy]), scale


def glare_field(r, h_inv_page, d, centres, s_render, fmt, bbox, allow_mrz, exposure):
    """A specular highlight on the card: its centre and size in mm on the document, and the
    additive field over bbox (frame pixels). Retries until it washes out at most 3 MRZ characters:
    a blurred character is gone once the light added to it, times the exposure, passes 0.4 of
    white; it is touched from 0.12."""
    W, H = FORMATS[fmt]["size"]
    strength = d["glare"]["strength"]
    cmm = np.array([c for row in centres for c in row]) / s_render

    def field(x, y):
        dx, dy = x - cx, y - cy
        u, v = (dx * ca + dy * sa) / ax, (-dx * sa + dy * ca) / ay
        q = u * u + v * v
        return strength * (np.exp(-0.5 * q ** 1.5) + 0.2 * np.exp(-q / 8.0))

    for attempt in range(40):
        if allow_mrz and attempt < 20:
            cx, cy = r.uniform(0.1, 0.9) * W, r.uniform(0.55, 0.95) * H
        else:
            cx, cy = r.uniform(0.1, 0.9) * W, r.uniform(0.1, 0.6) * H
        ax, ay = r.uniform(6, 22), r.uniform(3, 10)
        ang = r.uniform(0, math.pi)
        ca, sa = math.cos(ang), math.sin(ang)
        g = field(cmm[:, 0], cmm[:, 1]) * exposure
        covered = int((g > 0.4).sum())
        if covered <= 3:
            break
    else:
        strength *= 0.3
        g = field(cmm[:, 0], cmm[:, 1]) * exposure
        covered = int((g > 0.4).sum())
    d["glare"].update({"centre_mm": [round(cx, 2), round(cy, 2)], "radii_mm": [round(ax, 2), round(ay, 2)],
                       "angle_deg": round(math.degrees(ang), 1), "strength": round(strength, 3),
                       "mrz_chars_washed_out": covered, "mrz_chars_touched": int((g > 0.12).sum())})
    # the field is smooth: evaluate it on a grid of 4 x 4 pixels and scale it up
    x0, y0, x1, y1 = bbox
    gw, gh = (x1 - x0 + 3) // 4 + 1, (y1 - y0 + 3) // 4 + 1
    ys, xs = np.mgrid[0:gh, 0:gw]
    pts = np.stack([x0 + xs.ravel() * 4.0, y0 + ys.ravel() * 4.0], axis=1)
    mm = apply_h(h_inv_page, pts) / s_render
    small = field(mm[:, 0], mm[:, 1]).reshape(gh, gw).astype(np.float32)
    big = Image.fromarray(small, "F").resize((gw * 4, gh * 4), Image.BILINEAR)
    return np.asarray(big)[: y1 - y0, : x1 - x0]


def capsule(tip, direction, length, width, steps=12):
    """Outline of a bar with a round end (mm): the round end touching tip, the bar running along
    the unit vector direction for length."""
    ux, uy = direction
    nx, ny = -uy, ux
    radius = width / 2
    cx, cy = tip[0] + ux * radius, tip[1] + uy * radius
    pts = []
    for k in range(steps + 1):  # from one side through the tip to the other
        a = math.pi / 2 + math.pi * k / steps
        c, s = math.cos(a), math.sin(a)
        pts.append((cx + radius * (c * ux + s * nx), cy + radius * (c * uy + s * ny)))
    fx, fy = cx + ux * length, cy + uy * length
    pts += [(fx - nx * radius, fy - ny * radius), (fx + nx * radius, fy + ny * radius)]
    return pts


def draw_thumb(r, frame, h_page, s_render, fmt, mrz_top_mm, blur):
    """A thumb holding the document at its left or right edge, above the MRZ, drawn on the page's
    plane (so it follows the perspective) and coming in from outside."""
    W, H = FORMATS[fmt]["size"]
    side = r.choice([0, 1])
    width = r.uniform(15, 19)
    ey = r.uniform(width / 2 + 4, max(width / 2 + 4.5, min(H * 0.6, mrz_top_mm - width / 2 - 3)))
    inset = r.uniform(5, 12)
    angle = math.radians(r.uniform(-25, 25))
    direction = (-math.cos(angle), math.sin(angle)) if side == 0 else (math.cos(angle), math.sin(angle))
    tip = (inset, ey) if side == 0 else (W - inset, ey)
    skin = jitter(r, r.choice([(224, 172, 140), (198, 134, 100), (141, 85, 60), (96, 58, 40), (236, 196, 170)]), 12)
    layers = [(capsule(tip, direction, 70, width), mix(skin, (0, 0, 0), 0.35)),
              (capsule((tip[0] + direction[0] * 0.8, tip[1] + direction[1] * 0.8), direction, 70, width * 0.8), skin),
              (capsule((tip[0] + direction[0] * 2.0, tip[1] + direction[1] * 2.0), direction, 70, width * 0.45),
               mix(skin, (255, 240, 230), 0.15)),
              (capsule((tip[0] + direction[0] * 1.2, tip[1] + direction[1] * 1.2), direction, 9, width * 0.55),
               mix(skin, (255, 225, 220), 0.4))]
    frame_pts = [apply_h(h_page, np.array(pts) * s_render) for pts, _ in layers]
    allp = np.vstack(frame_pts)
    x0, y0 = max(0, int(allp[:, 0].min()) - 4), max(0, int(allp[:, 1].min()) - 4)
    x1, y1 = min(FRAME_W, int(allp[:, 0].max()) + 5), min(FRAME_H, int(allp[:, 1].max()) + 5)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    layer = Image.new("RGBA", (x1 - x0, y1 - y0), skin + (0,))
    draw = ImageDraw.Draw(layer)
    for pts, (_, colour) in zip(frame_pts, layers):
        draw.polygon([(float(x - x0), float(y - y0)) for x, y in pts], fill=colour + (255,))
    layer = layer.filter(ImageFilter.GaussianBlur(max(1.5, blur)))
    frame.paste(layer, (x0, y0), layer)
    return {"side": "left" if side == 0 else "right", "at_mm": round(ey, 1), "width_mm": round(width, 1)}


def scene_light(d, gx, gy):
    """The light falling on frame points gx, gy (-0.5..0.5 across the frame): gradient,
    vignette, a shadow's soft edge."""
    ang = math.radians(d["light_gradient_angle_deg"])
    light = 1 + d["light_gradient"] * (gx * math.cos(ang) + gy * math.sin(ang)) * 1.6
    light *= 1 - d["vignette"] * (gx * gx + gy * gy) * 2.2
    if d["shadow"]:
        sa = math.radians(d["shadow"]["angle_deg"])
        t = (gx * math.cos(sa) + gy * math.sin(sa) - d["shadow"]["offset"]) * (FRAME_W / d["shadow"]["softness_px"])
        light *= 1 - d["shadow"]["depth"] / (1 + np.exp(-t))
    return light


def mrz_contrast(d, light):
    """Contrast between paper and ink in the darkest corner of the MRZ, and that over the noise."""
    paper, ink = 0.85 * light, 0.13 * light
    if d["low_light"]:
        ll = d["low_light"]
        paper = ll["black_level"] + ll["gain"] * min(paper, 1.0) ** ll["gamma"]
        ink = ll["black_level"] + ll["gain"] * min(ink, 1.0) ** ll["gamma"]
    noise = math.sqrt(d["noise_read_sigma"] ** 2 + d["noise_shot"] * paper)
    return paper - ink, (paper - ink) / noise


def keep_legible(d, gx, gy):
    """Eases a hard frame's lighting and noise, a step at a time, until a person can still read its
    MRZ (corners at gx, gy): contrast at least 0.18 of white, and 4.5 times the noise, where the zone
    is darkest. Records the number of steps."""
    steps = 0
    while steps < 40:
        contrast, snr = mrz_contrast(d, float(np.min(scene_light(d, gx, gy))))
        if contrast >= 0.18 and snr >= 4.5:
            break
        steps += 1
        d["vignette"] = round(d["vignette"] * 0.9, 3)
        d["light_gradient"] = round(d["light_gradient"] * 0.9, 3)
        if d["shadow"]:
            d["shadow"]["depth"] = round(d["shadow"]["depth"] * 0.85, 3)
        if d["low_light"]:
            ll = d["low_light"]
            ll["gain"] = round(min(0.75, ll["gain"] * 1.06 + 0.01), 3)
            ll["gamma"] = round(max(1.1, ll["gamma"] - 0.05), 3)
        d["noise_read_sigma"] = round(d["noise_read_sigma"] * 0.94, 4)
        d["noise_shot"] = round(d["noise_shot"] * 0.9, 5)
    d["eased_for_legibility"] = steps


def render_frame(r, rng, fmt, split, lines, person):
    """One camera frame: returns (RGB image, degradations, scene)."""
    real = split == "real"
    d = draw_params_real(r, fmt) if real else draw_params(r, split, fmt)
    W, H = FORMATS[fmt]["size"]
    quad, scale = place(r, fmt, split, d, d["blur_sigma_px"], 2.35)
    kind = r.choices(list(BACKGROUNDS), (22, 16, 14, 14, 14, 20))[0]
    if real and d["capture"] == "scan":
        kind = "light-desk"
    scene = {"background": kind, "booklet": False, "thumb": None}
    bg = background(r, rng, kind, d["blur_sigma_px"])
    s_render = max(scale * 1.15, 4.0)
    text_heavy = r.random() < 0.35
    scene["text_heavy"] = text_heavy
    page_img, centres, cap_px_render = render_document(r, fmt, person, lines, s_render, text_heavy,
                                                       d["mrz_print"] if real else None)
    offset = (0, 0)
    obj = page_img
    if fmt == "TD3" and r.random() < 0.45 and not (real and d["capture"] == "scan"):
        obj, offset = booklet(r, page_img, s_render, text_heavy)
        scene["booklet"] = True
    pw, ph = page_img.size
    ox, oy = offset
    src = [(ox, oy), (ox + pw, oy), (ox + pw, oy + ph), (ox, oy + ph)]
    h_obj = homography(src, quad)  # object pixels -> frame
    # warp only the frame's part that the object (and its shadow) covers
    ow, oh = obj.size
    oq = apply_h(h_obj, [(0, 0), (ow, 0), (ow, oh), (0, oh)])
    pad = 40
    x0, y0 = max(0, int(oq[:, 0].min()) - pad), max(0, int(oq[:, 1].min()) - pad)
    x1, y1 = min(FRAME_W, int(oq[:, 0].max()) + pad + 1), min(FRAME_H, int(oq[:, 1].max()) + pad + 1)
    h_inv = np.linalg.inv(np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ h_obj)
    h_inv /= h_inv[2, 2]
    warped = obj.transform((x1 - x0, y1 - y0), Image.PERSPECTIVE, tuple(h_inv.ravel()[:8]), Image.BILINEAR)
    if d["blur_sigma_px"] > 0:  # the lens (the background had its blur already)
        warped = warped.filter(ImageFilter.GaussianBlur(d["blur_sigma_px"]))

    # a soft drop shadow under the document
    alpha = warped.getchannel("A")
    shadow = alpha.filter(ImageFilter.BoxBlur(r.uniform(4, 18)))
    shadow = ImageChops.offset(shadow, int(r.uniform(-12, 12)), int(r.uniform(2, 16)))
    shadow = shadow.point(lambda v, k=r.uniform(0.35, 0.6): int(v * k))
    region = bg.crop((x0, y0, x1, y1))
    region = Image.composite(Image.new("RGB", region.size, (0, 0, 0)), region, shadow)
    region.paste(warped, (0, 0), warped)
    bg.paste(region, (x0, y0))

    # page pixels -> frame (for the MRZ's corners, the glare and the thumb)
    h_page = h_obj @ np.array([[1, 0, offset[0]], [0, 1, offset[1]], [0, 0, 1]], np.float64)
    h_page_inv = np.linalg.inv(h_page)
    flat = np.array([c for row in centres for c in row])
    half_w, half_h = PITCH_MM / 2 * s_render, cap_px_render / 2
    left, right = flat[:, 0].min() - half_w, flat[:, 0].max() + half_w
    top, bottom = flat[:, 1].min() - half_h, flat[:, 1].max() + half_h
    corners = [(left, top), (right, top), (right, bottom), (left, bottom)]
    mrz_quad = apply_h(h_page, corners)
    scene["mrz_quad"] = [[round(float(x), 1), round(float(y), 1)] for x, y in mrz_quad]
    scene["page_quad"] = [[round(float(x), 1), round(float(y), 1)] for x, y in quad]
    scene["doc_width_frac"] = round(scale * W / FRAME_W, 3)
    scene["mrz_char_height_px"] = round(cap_px_render * scale / s_render, 1)
    mrz_top_mm = (flat[:, 1].min() - half_h) / s_render
    if r.random() < (0.12 if split == "good" else 0.2) and not (real and d["capture"] == "scan"):
        scene["thumb"] = draw_thumb(r, bg, h_page, s_render, fmt, mrz_top_mm, d["blur_sigma_px"])
    img = bg

    # scene light: gradient, vignette, a shadow edge (a multiplier, scaled to at most 1 here and
    # given back with the exposure below)
    if split in ("hard", "real"):
        keep_legible(d, mrz_quad[:, 0] / FRAME_W - 0.5, mrz_quad[:, 1] / FRAME_H - 0.5)
    gy, gx = np.mgrid[0:FRAME_H // 8, 0:FRAME_W // 8].astype(np.float32)
    light = scene_light(d, gx / (FRAME_W // 8) - 0.5, gy / (FRAME_H // 8) - 0.5)
    light_max = float(light.max())
    light = Image.fromarray((light / light_max * 255 + 0.5).astype(np.uint8), "L")
    light = light.resize((FRAME_W, FRAME_H), Image.BILINEAR)
    img = ImageChops.multiply(img, Image.merge("RGB", [light] * 3))

    if d["glare"]:  # specular light on the laminate, added to the scene
        hard = split == "hard"
        field = glare_field(r, h_page_inv, d, centres, s_render, fmt, (x0, y0, x1, y1), (hard or real) and r.random() < 0.4,
                            light_max * max(d["colour_cast_rgb"]))
        field = field * (np.asarray(alpha, np.float32) * (1.0 / light_max))
        warm = np.array([1.0, r.uniform(0.97, 1.0), r.uniform(0.9, 1.0)], np.float32)
        glare = Image.fromarray(np.clip(field[..., None] * warm + 0.5, 0, 255).astype(np.uint8), "RGB")
        img.paste(ImageChops.add(img.crop((x0, y0, x1, y1)), glare), (x0, y0))

    # the sensor: exposure, white balance, low light (a table per channel), then noise
    lut = []
    for gain in d["colour_cast_rgb"]:
        x = np.arange(256, dtype=np.float64) / 255.0 * light_max * gain
        if d["low_light"]:
            ll = d["low_light"]
            x = ll["black_level"] + ll["gain"] * np.clip(x, 0, 1) ** ll["gamma"]
        lut += [int(v) for v in np.clip(x * 255 + 0.5, 0, 255)]
    img = img.point(lut)
    # sensor noise: luminance noise at the level of the document's brightness (shot noise), from
    # the sum of two uniform bytes (near enough to a Gaussian); colour noise is coarser after
    # demosaicing (a quarter of the resolution, scaled up smoothly)
    x0c, y0c, x1c, y1c = (int(v) for v in (quad[:, 0].min(), quad[:, 1].min(), quad[:, 0].max(), quad[:, 1].max()))
    mean = np.asarray(img.crop((x0c, y0c, x1c, y1c)).convert("L").reduce(8), np.float32).mean() / 255.0
    sigma = 255.0 * math.sqrt(d["noise_read_sigma"] ** 2 + d["noise_shot"] * mean)
    d["noise_sigma_levels"] = round(sigma, 2)
    pair = rng.integers(0, 256, (2, FRAME_H, FRAME_W), np.uint8)
    tri = pair[0].astype(np.uint16)
    tri += pair[1]
    scale = 0.8 * sigma / math.sqrt(2 * (256 * 256 - 1) / 12.0)
    levels = np.clip(128.5 + (np.arange(511) - 255) * scale, 0, 255).astype(np.uint8)
    luma = Image.fromarray(levels[tri], "L")
    img = ImageChops.add(img, Image.merge("RGB", [luma] * 3), 1.0, -128)
    if sigma >= 4:  # colour noise shows only where the noise is strong
        chroma = rng.standard_normal((FRAME_H // 4, FRAME_W // 4, 3), np.float32) * (0.5 * sigma) + 128.5
        chroma = Image.fromarray(np.clip(chroma, 0, 255).astype(np.uint8), "RGB")
        chroma = chroma.resize((FRAME_W, FRAME_H), Image.BILINEAR)
        img = ImageChops.add(img, chroma, 1.0, -128)
    if d["sharpen"]:  # the camera's sharpening (unsharp masking with a box blur), where it shows
        region = img.crop((x0, y0, x1, y1))
        soft = region.filter(ImageFilter.BoxBlur(d["sharpen"]["radius"]))
        img.paste(Image.blend(soft, region, 1.0 + d["sharpen"]["percent"] / 100.0), (x0, y0))
    return img, d, scene


def save(img, path, quality):
    if path.lower().endswith((".jpg", ".jpeg")):
        img.save(path, "JPEG", quality=quality, subsampling=2, optimize=False, progressive=False)
    else:
        img.save(path, "PNG", compress_level=1)


# ---------------------------------------------------------------------------------------------
# The set


def plan(count, seed):
    """Format, split, file type and confusable flag of every image, with the set's exact shares
    (and the good/hard shares within each format)."""
    r = random.Random("plan-%d-%d" % (seed, count))

    def shares(n, pairs):
        out, total = [], 0
        for k, (value, share) in enumerate(pairs):
            m = n - total if k == len(pairs) - 1 else int(round(n * share))
            out += [value] * m
            total += m
        r.shuffle(out)
        return out

    formats = shares(count, [("TD3", 0.40), ("TD1", 0.35), ("TD2", 0.25)])
    splits = [""] * count
    for fmt in ("TD3", "TD1", "TD2"):
        where = [i for i, f in enumerate(formats) if f == fmt]
        for i, split in zip(where, shares(len(where), [("good", 0.55), ("hard", 0.45)])):
            splits[i] = split
    types = shares(count, [("jpg", 0.80), ("png", 0.20)])
    confusable = shares(count, [(True, 0.08), (False, 0.92)])
    return list(zip(formats, splits, types, confusable))


def plan_real(count, seed):
    """Format, file type and confusable flag of every real-looking image (its own generator)."""
    r = random.Random("plan-real-%d-%d" % (seed, count))
    out = []
    for _ in range(count):
        fmt = r.choices(["TD3", "TD1", "TD2"], (40, 35, 25))[0]
        out.append((fmt, "real", "jpg" if r.random() < 0.85 else "png", r.random() < 0.08))
    return out


def make_one(args):
    index, seed, out, fmt, split, ext, confusable = args
    real = split == "real"
    r = random.Random(("real/%d/%d" if real else "%d/%d") % (seed, index))
    rng = np.random.default_rng([seed, index, 7] if real else [seed, index])
    person = random_person(r, fmt, confusable)
    if real and r.random() < 0.2:
        # a code outside ISO 3166 that issued documents do print
        person["issuer"] = r.choice(IRREGULAR_CODES)
        if r.random() < 0.7:
            person["nationality"] = person["issuer"]
    lines = make_lines(fmt, person)
    img, d, scene = render_frame(r, rng, fmt, split, lines, person)
    quality = None
    if ext == "jpg":
        quality = r.randint(35, 60) if split == "hard" else r.randint(30, 90) if real else r.randint(80, 95)
    d["jpeg_quality"] = quality
    if real and d["turn_deg"]:
        img = img.rotate(d["turn_deg"], expand=True)  # counter-clockwise; scene is before the turn
    name = ("images/r%04d.%s" if real else "images/%04d.%s") % (index, ext)
    save(img, os.path.join(out, name), quality)
    scene["confusable_characters"] = confusable
    return {"file": name, "format": fmt, "lines": lines, "split": split, "degradations": d,
            "width": img.width, "height": img.height, "scene": scene}


def make_set(out, count, seed, jobs, real=0):
    os.makedirs(os.path.join(out, "images"), exist_ok=True)
    tasks = [(i + 1, seed, out, fmt, split, ext, conf) for i, (fmt, split, ext, conf) in enumerate(plan(count, seed))]
    tasks += [(i + 1, seed, out, fmt, split, ext, conf)
              for i, (fmt, split, ext, conf) in enumerate(plan_real(real, seed))]
    started = time.monotonic()
    if jobs > 1:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            manifest = pool.map(make_one, tasks, chunksize=4)
    else:
        manifest = [make_one(t) for t in tasks]
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("make-mrz-set: %d images in %s (%.1f s)" % (len(tasks), out, time.monotonic() - started), file=sys.stderr)


def make_document(lines, out, seed, quality):
    fmt = mrz_shape(lines)
    if fmt is None:
        bad = sorted(set("".join(lines)) - MRZ_ALPHABET)
        lengths = ", ".join(str(len(x)) for x in lines)
        got = "%d line%s of %s characters" % (len(lines), "" if len(lines) == 1 else "s", lengths)
        if bad:
            got += ", with %s" % " ".join(repr(c) for c in bad)
        print("make-mrz-set: not an MRZ (%s): give 2 lines of 44 characters (passport), 2 of 36 (TD2) "
              "or 3 of 30 (ID card), of A-Z, 0-9 and <" % got, file=sys.stderr)
        sys.exit(2)
    r = random.Random("document/%d" % seed)
    rng = np.random.default_rng([seed, 0, 1])
    person = person_from_lines(r, fmt, lines)
    img, d, scene = render_frame(r, rng, fmt, quality, lines, person)
    jpeg_quality = None
    if out.lower().endswith((".jpg", ".jpeg")):
        jpeg_quality = r.randint(35, 60) if quality == "hard" else r.randint(80, 95)
    d["jpeg_quality"] = jpeg_quality
    save(img, out, jpeg_quality)
    print(json.dumps({"file": out, "format": fmt, "lines": lines, "split": quality, "degradations": d,
                      "width": FRAME_W, "height": FRAME_H, "scene": scene}, ensure_ascii=False))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="the set's folder, or with --document the image file")
    parser.add_argument("--count", type=int, default=520)
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--real", type=int, default=0,
                        help="real-looking images to add (split 'real': several OCR-B prints, phone photos and "
                        "scans, glyphs down to 12 px, JPEG down to 30, tilt up to 30 degrees, turned pictures)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (the output does not depend on it)")
    parser.add_argument("--document", action="store_true", help="render one document with --lines")
    parser.add_argument("--lines", nargs="+", help="the MRZ lines of --document")
    parser.add_argument("--quality", choices=["good", "hard"], default="good")
    args = parser.parse_args()
    if args.document:
        if not args.lines:
            parser.error("--document needs --lines")
        if not args.out.lower().endswith((".png", ".jpg", ".jpeg")):
            parser.error("--out must end in .png, .jpg or .jpeg")
        make_document(args.lines, args.out, args.seed, args.quality)
    else:
        if args.lines:
            parser.error("--lines needs --document")
        if args.count < 1:
            parser.error("--count must be at least 1")
        make_set(args.out, args.count, args.seed, max(1, args.jobs), max(0, args.real))


if __name__ == "__main__":
    main()
