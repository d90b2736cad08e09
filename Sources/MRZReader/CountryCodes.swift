/// The codes a machine-readable zone may give for an issuing state or a nationality: the ISO 3166-1
/// alpha-3 codes (from Debian's iso-codes 4.15) and the codes ICAO Doc 9303 adds: `D` for Germany,
/// `UTO` for the specimens' Utopia, the United Kingdom's `GBD` `GBN` `GBO` `GBP` `GBS`, `RKS`
/// (Kosovo), `EUE`, `UNO` `UNA` `UNK`, the organisations' `X..` codes and `XXA` `XXB` `XXC` `XXX`
/// (stateless, refugees, unspecified), and the retired `ANT` and `NTZ`.
///
/// Country codes carry no check digit, so a misread one (`ZDL` for `ISL`) could otherwise pass.
enum CountryCodes {
    static let all: Set<String> = [
        "ABW", "AFG", "AGO", "AIA", "ALA", "ALB", "AND", "ANT", "ARE", "ARG", "ARM", "ASM", "ATA", "ATF",
        "ATG", "AUS", "AUT", "AZE", "BDI", "BEL", "BEN", "BES", "BFA", "BGD", "BGR", "BHR", "BHS", "BIH",
        "BLM", "BLR", "BLZ", "BMU", "BOL", "BRA", "BRB", "BRN", "BTN", "BVT", "BWA", "CAF", "CAN", "CCK",
        "CHE", "CHL", "CHN", "CIV", "CMR", "COD", "COG", "COK", "COL", "COM", "CPV", "CRI", "CUB", "CUW",
        "CXR", "CYM", "CYP", "CZE", "D", "DEU", "DJI", "DMA", "DNK", "DOM", "DZA", "ECU", "EGY", "ERI",
        "ESH", "ESP", "EST", "ETH", "EUE", "FIN", "FJI", "FLK", "FRA", "FRO", "FSM", "GAB", "GBD", "GBN",
        "GBO", "GBP", "GBR", "GBS", "GEO", "GGY", "GHA", "GIB", "GIN", "GLP", "GMB", "GNB", "GNQ", "GRC",
        "GRD", "GRL", "GTM", "GUF", "GUM", "GUY", "HKG", "HMD", "HND", "HRV", "HTI", "HUN", "IDN", "IMN",
        "IND", "IOT", "IRL", "IRN", "IRQ", "ISL", "ISR", "ITA", "JAM", "JEY", "JOR", "JPN", "KAZ", "KEN",
        "KGZ", "KHM", "KIR", "KNA", "KOR", "KWT", "LAO", "LBN", "LBR", "LBY", "LCA", "LIE", "LKA", "LSO",
        "LTU", "LUX", "LVA", "MAC", "MAF", "MAR", "MCO", "MDA", "MDG", "MDV", "MEX", "MHL", "MKD", "MLI",
        "MLT", "MMR", "MNE", "MNG", "MNP", "MOZ", "MRT", "MSR", "MTQ", "MUS", "MWI", "MYS", "MYT", "NAM",
        "NCL", "NER", "NFK", "NGA", "NIC", "NIU", "NLD", "NOR", "NPL", "NRU", "NTZ", "NZL", "OMN", "PAK",
        "PAN", "PCN", "PER", "PHL", "PLW", "PNG", "POL", "PRI", "PRK", "PRT", "PRY", "PSE", "PYF", "QAT",
        "REU", "RKS", "ROU", "RUS", "RWA", "SAU", "SDN", "SEN", "SGP", "SGS", "SHN", "SJM", "SLB", "SLE",
        "SLV", "SMR", "SOM", "SPM", "SRB", "SSD", "STP", "SUR", "SVK", "SVN", "SWE", "SWZ", "SXM", "SYC",
        "SYR", "TCA", "TCD", "TGO", "THA", "TJK", "TKL", "TKM", "TLS", "TON", "TTO", "TUN", "TUR", "TUV",
        "TWN", "TZA", "UGA", "UKR", "UMI", "UNA", "UNK", "UNO", "URY", "USA", "UTO", "UZB", "VAT", "VCT",
        "VEN", "VGB", "VIR", "VNM", "VUT", "WLF", "WSM", "XBA", "XCC", "XCE", "XCO", "XDC", "XEC", "XES",
        "XIM", "XOM", "XPO", "XXA", "XXB", "XXC", "XXX", "YEM", "ZAF", "ZMB", "ZWE",
    ]
}
