"""Korean texts of the monitoring charts."""

TEXTS: dict[str, str] = {
    "charts.title": "시간별 추이",
    "charts.empty": (
        "이 기간에는 아직 그릴 값이 없습니다. "
        "데이터가 막 들어오기 시작했다면 {shorter}처럼 짧은 기간에서 먼저 보입니다."
    ),
    "charts.loading": "기간 데이터를 불러오는 중…",
    "charts.metric.utilization": "사용률",
    "charts.metric.memory": "메모리",
    "charts.metric.temperature": "온도",
    "charts.metric.power": "전력",
    "charts.unit.utilization": "%",
    "charts.unit.memory": "GiB (사용)",
    "charts.unit.temperature": "°C",
    "charts.unit.power": "W",
    # The axis label at a day's (or a month's, or a year's) first tick.
    "charts.axis.day": "{month}월 {day}일",
    "charts.axis.year": "{year}년 {month}월 {day}일",
}
