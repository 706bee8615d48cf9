"""한국어: 메트릭 백엔드(Prometheus 또는 같은 API를 쓰는 엔진)가 데이터를 얼마나 늦게 보여 주는지."""

_LATENCY_HINT = (
    "VictoriaMetrics라면 -search.latencyOffset을 스크레이프 간격 이하로 설정하고, 아니라면 "
    "익스포터가 스크레이프되는지, NUFI_MONITORING_SCRAPE_INTERVAL_SECONDS가 실제 스크레이프 간격인지 "
    "확인하세요"
)

TEXTS: dict[str, str] = {
    "metrics_backend.not_configured": (
        "설정되지 않았습니다. 데이터가 얼마나 늦는지 보려면 NUFI_PROMETHEUS_URL을 설정하세요"
    ),
    "metrics_backend.lagging": (
        "{device_type}의 가장 최근 샘플이 읽을 때 이미 {lag_seconds:.1f}초 지난 값이었습니다"
        f"(한도 {{limit_seconds:g}}초). 메트릭 백엔드가 데이터를 늦게 보여 줍니다. {_LATENCY_HINT}."
    ),
    "metrics_backend.not_measured": "아직 읽은 디바이스 유형이 없어 데이터가 얼마나 늦는지 알 수 없습니다",
    "metrics_backend.in_time": (
        "가장 최근 샘플은 읽을 때 최대 {lag_seconds:.1f}초 지난 값이었습니다(한도 {limit_seconds:g}초)"
    ),
    "metrics_backend.late": (
        "{device_types}의 가장 최근 샘플이 읽을 때 최대 {lag_seconds:.1f}초 지난 값이었습니다"
        f"(한도 {{limit_seconds:g}}초). {_LATENCY_HINT}."
    ),
    "metrics_backend.subquery_points": (
        "'{expression}'의 서브쿼리는 NuFi가 차트와 드라이 런에 묻는 {span_hours:g}시간 동안 "
        "{step_seconds:g}초 간격으로 시계열마다 점 {points}개를 만듭니다. 엔진이 허용할 수 있는 {limit}개"
        "(NUFI_PROMQL_MAX_POINTS_PER_SERIES, VictoriaMetrics의 -search.maxPointsPerTimeseries)보다 많습니다. "
        "서브쿼리 간격을 늘리거나 범위를 줄이세요"
    ),
}
